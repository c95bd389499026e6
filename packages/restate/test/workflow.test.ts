import {
  asks,
  contentText,
  final,
  MemoryEventStore,
  replayRun,
  resumeAgent,
  runAgent,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { parseEventLog } from "@agentloop/core/store";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentWorkflow } from "../src/index.js";
import { waitUntil } from "../src/testing/wait-until.js";
import { stepModel } from "./support/in-process.js";
import { CountingStore, type InProcessHarness, openInProcess, untimed } from "./support/in-process-harness.js";

const TASK = "How hot is Pune in Fahrenheit?";
const SCRIPT = [
  asks(toolCall("c1", "get_weather", { city: "Pune" })),
  asks(toolCall("c2", "c_to_f", { celsius: 30 })),
  final("It is 86 F in Pune."),
];

function weatherRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ({ city }: { city: string }) => ({ city, celsius: 30 }),
  );
  registry.register(
    "c_to_f",
    "Convert Celsius to Fahrenheit.",
    { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] },
    ({ celsius }: { celsius: number }) => (celsius * 9) / 5 + 32,
  );
  return registry;
}

const weatherModel = stepModel(SCRIPT);
const weatherStore = new CountingStore();
const weather = agentWorkflow({
  name: "weather",
  model: weatherModel,
  registry: weatherRegistry(),
  store: weatherStore,
});

// Step 2 fails on its first call for each run, then works: Restate retries the step.
const failedOnce = new Set<string>();
const flakyStore = new CountingStore();
const flaky = agentWorkflow({
  name: "flaky",
  registry: weatherRegistry(),
  store: flakyStore,
  modelRetry: { initialRetryInterval: 10 },
  model: (messages, tools, options) => {
    const step = messages.filter((message) => message.role === "assistant").length + 1;
    if (step === 2 && !failedOnce.has(contentText(messages[1]?.content ?? ""))) {
      failedOnce.add(contentText(messages[1]?.content ?? ""));
      throw new Error("the provider is busy");
    }
    return weatherModel(messages, tools, options);
  },
});

// Step 2 always fails: past its two attempts, the run fails.
const brokenStore = new MemoryEventStore();
const broken = agentWorkflow({
  name: "broken",
  registry: weatherRegistry(),
  store: brokenStore,
  modelRetry: { maxRetryAttempts: 2, initialRetryInterval: 10 },
  model: (messages, tools, options) => {
    if (messages.length > 2) throw new Error("the provider is down");
    return weatherModel(messages, tools, options);
  },
});

const conflictStore = new MemoryEventStore();
const conflicted = agentWorkflow({
  name: "conflicted",
  model: weatherModel,
  registry: weatherRegistry(),
  store: conflictStore,
});

// A tool that waits until the test opens its gate: the run is caught mid-step.
const gates = new Map<string, () => void>();
function gatedRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    "gate",
    "Wait for the gate.",
    { type: "object", properties: { ref: { type: "string" } }, required: ["ref"] },
    ({ ref }: { ref: string }) => new Promise<string>((resolve) => gates.set(ref, () => resolve("opened"))),
  );
  return registry;
}
const gatedScript = (ref: string) => stepModel([asks(toolCall("g1", "gate", { ref })), final("Through.")]);
const gatedStore = new MemoryEventStore();
const gated = agentWorkflow({
  name: "gated",
  model: gatedScript("quiet"),
  registry: gatedRegistry(),
  store: gatedStore,
});
const gatedEvery = agentWorkflow({
  name: "gatedEvery",
  model: gatedScript("every"),
  registry: gatedRegistry(),
  store: gatedStore,
  saveEventsEvery: 2,
});

describe("an agent workflow on a real Restate server", () => {
  let restate: InProcessHarness;

  beforeAll(async () => {
    restate = await openInProcess([weather, flaky, broken, conflicted, gated, gatedEvery]);
  }, hangGuard(60_000));

  afterAll(async () => {
    await restate?.close();
  });

  it("decides exactly as runAgent: the same events in the same order, the same result", async () => {
    const result = await restate.run("weather", "same-1").workflowSubmit({ task: TASK });
    expect(result.status).toBe("Accepted");
    const durable = await restate.run("weather", "same-1").workflowAttach();

    const local = new MemoryEventStore();
    const live = await runAgent(TASK, stepModel(SCRIPT), weatherRegistry(), { store: local, runId: "same-1" });
    expect(durable).toEqual(live);
    expect(untimed(await weatherStore.read("same-1"))).toEqual(untimed(await local.read("same-1")));
  });

  it("keeps the log in the workflow and mirrors it into the store; both replay to the result", async () => {
    const run = restate.run("weather", "log-1");
    await run.workflowSubmit({ task: TASK });
    const result = await run.workflowAttach();

    const kept = parseEventLog("log-1", await run.events());
    const mirrored = await weatherStore.read("log-1");
    expect(kept).toEqual(mirrored);
    expect(kept.map((event) => event.type)).toEqual([
      "run.started",
      "model.replied",
      "tool.started",
      "tool.finished",
      "model.replied",
      "tool.started",
      "tool.finished",
      "model.replied",
      "run.finished",
    ]);
    const { runId: _runId, ...rest } = result;
    expect(replayRun(kept).result).toEqual(rest);
    expect(weatherStore.appends.get("log-1")).toBe(kept.length);
  });

  it("writes no state while a run goes from step to step, unless saveEventsEvery asks for its log every N events", async () => {
    for (const [name, runId, ref, savedMidRun] of [
      ["gated", "quiet-1", "quiet", 0],
      ["gatedEvery", "every-1", "every", 3],
    ] as const) {
      const run = restate.run(name, runId);
      await run.workflowSubmit({ task: TASK });
      await waitUntil(() => gates.has(ref), { what: `${runId}'s gate` });
      // The mirror has every event at once; the workflow's state only what a save wrote (with
      // saveEventsEvery 2, the run saves once 2 or more wait as it starts to wait for the tool: 3).
      expect((await gatedStore.read(runId)).map((event) => event.type)).toEqual([
        "run.started",
        "model.replied",
        "tool.started",
      ]);
      expect(await run.events()).toHaveLength(savedMidRun);
      expect(await run.status()).toMatchObject({ phase: "running", events: savedMidRun });
      gates.get(ref)?.();
      expect(await run.workflowAttach()).toMatchObject({ status: "done", answer: "Through." });
      expect(parseEventLog(runId, await run.events())).toEqual(await gatedStore.read(runId));
    }
  });

  it("a second submission under the same id attaches to the first run: nothing is called again", async () => {
    const run = restate.run("weather", "twice-1");
    await run.workflowSubmit({ task: TASK });
    const first = await run.workflowAttach();
    const calls = [...weatherModel.calls];

    const again = await run.workflowSubmit({ task: "Another task entirely" });
    expect(again.status).toBe("PreviouslyAccepted");
    expect(await run.workflowAttach()).toEqual(first);
    expect(weatherModel.calls).toEqual(calls);
    expect(weatherStore.appends.get("twice-1")).toBe(9);
  });

  it("status: unknown under an id nobody submitted, finished with the result once the run ended", async () => {
    expect(await restate.run("weather", "nobody").status()).toMatchObject({
      runId: "nobody",
      phase: "unknown",
      events: 0,
    });
    const run = restate.run("weather", "status-1");
    await run.workflowSubmit({ task: TASK });
    const result = await run.workflowAttach();
    const status = await run.status();
    expect(status).toMatchObject({ phase: "finished", state: "done", steps: 3, tokens: result.tokens, events: 9 });
    expect(status.result).toEqual(result);
    expect(status.awaitingDecision).toEqual([]);
  });

  it("takes limits per run: a run submitted with maxSteps 1 stops with step_limit, and a null budget is no budget", async () => {
    const limited = restate.run("weather", "limits-1");
    await limited.workflowSubmit({ task: TASK, maxSteps: 1 });
    expect(await limited.workflowAttach()).toMatchObject({ status: "step_limit", steps: 1 });

    const unlimited = restate.run("weather", "limits-2");
    await unlimited.workflowSubmit({ task: TASK, tokenBudget: null });
    expect(await unlimited.workflowAttach()).toMatchObject({ status: "done" });
    const [started] = parseEventLog("limits-2", await unlimited.events());
    expect(started?.type === "run.started" && started.settings.tokenBudget).toBe(Number.POSITIVE_INFINITY);
  });

  it("refuses bad input with a clear message, runs nothing, and says so in the status", async () => {
    const calls = [...weatherModel.calls];
    const cases: [string, object, RegExp][] = [
      ["bad-1", { task: 42 }, /task must be a string, got number 42/],
      ["bad-2", { task: TASK, maxSteps: -1 }, /maxSteps must be a whole number, 0 or more; got -1/],
      ["bad-3", { task: TASK, maxStep: 3 }, /unknown run option 'maxStep'/],
    ];
    for (const [runId, request, message] of cases) {
      const run = restate.run("weather", runId);
      await run.workflowSubmit(request as { task: string });
      await expect(run.workflowAttach()).rejects.toThrow(message);
      expect(await run.status()).toMatchObject({ phase: "failed", error: expect.stringMatching(message) });
    }
    expect(weatherModel.calls).toEqual(calls);
  });

  it("retries a model call that failed in a new execution; the mirror never appends an event twice", async () => {
    const run = restate.run("flaky", "flaky-1");
    await run.workflowSubmit({ task: TASK });
    const result = await run.workflowAttach();
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune." });
    // Each execution reads the store once, before its first append: the retry was a second one.
    expect(flakyStore.reads.get("flaky-1")).toBe(2);
    const log = await flakyStore.read("flaky-1");
    expect(flakyStore.appends.get("flaky-1")).toBe(log.length);
    expect(log.filter((event) => event.type === "model.replied")).toHaveLength(3);
  });

  it("fails the run when the model fails past its retries; the log stays resumable in one process", async () => {
    const run = restate.run("broken", "broken-1");
    await run.workflowSubmit({ task: TASK });
    await expect(run.workflowAttach()).rejects.toThrow(/model call 2 failed: Error: the provider is down/);
    expect(await run.status()).toMatchObject({ phase: "failed", error: expect.stringMatching(/the provider is down/) });
    const log = await brokenStore.read("broken-1");
    expect(log.at(-1)?.type).toBe("tool.finished");

    const resumed = await resumeAgent("broken-1", stepModel(SCRIPT), weatherRegistry(), { store: brokenStore });
    expect(resumed).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", steps: 3 });
  });

  it("refuses to mirror into a store that holds another run's log under the same id", async () => {
    await runAgent("Something else", stepModel([final("No.")]), weatherRegistry(), {
      store: conflictStore,
      runId: "taken-1",
    });
    const run = restate.run("conflicted", "taken-1");
    await run.workflowSubmit({ task: TASK });
    await expect(run.workflowAttach()).rejects.toThrow(/the event store holds another run's log under this id/);
    expect((await conflictStore.read("taken-1")).map((event) => event.type)).toEqual([
      "run.started",
      "model.replied",
      "run.finished",
    ]);
    await waitUntil(async () => (await run.status()).phase === "failed", { what: "the failed status" });
  });
});
