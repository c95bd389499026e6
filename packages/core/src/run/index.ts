// The entry module of run/: the other parts of core import it from here.

export * from "./agent-actor.js";
export * from "./agent-actor-run.js";
export * from "./answer-inbox.js";
export * from "./approval-desk.js";
export * from "./ask-approver.js";
export * from "./ask-model.js";
export * from "./check-guardrail.js";
export * from "./check-output.js";
export * from "./compact-context.js";
export * from "./driven-machine.js";
export * from "./mail-fixture.js";
export * from "./performing.js";
export * from "./resume.js";
export * from "./retry-options.js";
export * from "./run-agent.js";
export * from "./run-effects.js";
export * from "./run-loop.js";
export * from "./run-tool.js";
export * from "./scripted-model.js";
export * from "./settings.js";
export * from "./stream-agent.js";
export * from "./stream-events.js";
export * from "./stream-queue.js";
export * from "./turn-checks.js";
export * from "./wait-retry.js";
export * from "./weather-fixture.js";
