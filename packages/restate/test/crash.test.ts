import { replayRun } from "@agentloop/core";
import { parseEventLog } from "@agentloop/core/store";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../src/testing/index.js";
import { waitUntil } from "../src/testing/wait-until.js";
import { countEvents, expectLogReplays, type Harness, openHarness, task } from "./support/agent-runs.js";
import type { ServiceProcess } from "./support/service-process.js";

// A real Restate server (from node_modules) and a service process running the built package,
// SIGKILLed in the middle of an effect and started again on the same address: the run goes on
// from Restate's journal, and every effect that was journaled happens exactly once.
describe("a service process killed with SIGKILL and started again", () => {
  let harness: Harness;
  let port: number;

  beforeAll(async () => {
    harness = await openHarness();
    port = await freePort();
    const service = await harness.service(port);
    await harness.server.register(`http://127.0.0.1:${port}`);
    await service.kill();
  }, hangGuard(60_000));

  afterAll(async () => {
    await harness?.close();
  });

  /** Starts the service blocked at `block`, submits the run and kills the service once that effect started. */
  async function killDuring(runId: string, script: "pay" | "mail", block: string, started: () => boolean) {
    const service = await harness.service(port, { BLOCK: block });
    await harness.run(runId).workflowSubmit({ task: task(runId, script) });
    await waitUntil(started, { what: `${block} to start`, failIf: () => deadService(service) });
    await service.kill();
    return service;
  }

  it("killed in the middle of a model call: the call is made again, every journaled reply and tool exactly once", async () => {
    const { ledger } = harness;
    const killed = await killDuring("model-kill", "pay", "model:2", () =>
      ledger.has("model-kill", "model-start", "step 2"),
    );
    const service = await harness.service(port);
    const result = await harness.run("model-kill").workflowAttach();

    expect(result).toMatchObject({ status: "done", answer: "Paid.", steps: 3, runId: "model-kill" });
    const starts = (step: number) => ledger.count("model-kill", "model-start", `step ${step}`);
    const ends = (step: number) => ledger.count("model-kill", "model-end", `step ${step}`);
    expect([starts(1), starts(2), starts(3)]).toEqual([1, 2, 1]);
    expect([ends(1), ends(2), ends(3)]).toEqual([1, 1, 1]);
    for (const tool of ["get_weather Pune", "get_weather Delhi", "charge"]) {
      expect(ledger.count("model-kill", "tool-start", tool), tool).toBe(1);
      expect(ledger.count("model-kill", "tool-end", tool), tool).toBe(1);
    }
    const firstCall = ledger.entries().find((entry) => entry.ref === "model-kill" && entry.key === "step 2");
    expect(firstCall?.pid).toBe(killed.pid);
    const log = await expectLogReplays(harness, "model-kill", result);
    expect(countEvents(log, "model.replied")).toBe(3);
    expect(countEvents(log, "tool.finished")).toBe(3);
    await service.kill();
  });

  it("killed while a tool that is not idempotent runs: it never runs again, and the model is told its result was lost", async () => {
    const { ledger } = harness;
    await killDuring("charge-kill", "pay", "tool:charge", () => ledger.has("charge-kill", "tool-start", "charge"));
    const service = await harness.service(port);
    const result = await harness.run("charge-kill").workflowAttach();

    expect(result).toMatchObject({ status: "done", answer: "Paid.", steps: 3 });
    expect(ledger.count("charge-kill", "tool-start", "charge")).toBe(1);
    expect(ledger.count("charge-kill", "tool-end", "charge")).toBe(0);
    const observation = result.messages.find((message) => message.role === "tool" && message.toolCallId === "p1");
    expect(observation?.content).toMatch(/^ERROR: the result of charge was lost: the run was interrupted while it ran/);
    // The model saw the lost result, and was not called again for the steps it had answered.
    expect([1, 2, 3].map((step) => ledger.count("charge-kill", "model-start", `step ${step}`))).toEqual([1, 1, 1]);
    const log = await expectLogReplays(harness, "charge-kill", result);
    expect(countEvents(log, "tool.started", "p1")).toBe(1);
    expect(countEvents(log, "tool.finished", "p1")).toBe(1);
    await service.kill();
  });

  it("killed while an idempotent tool runs: it runs again, and its real result reaches the model", async () => {
    const { ledger } = harness;
    await killDuring("weather-kill", "pay", "tool:get_weather Delhi", () =>
      ledger.has("weather-kill", "tool-start", "get_weather Delhi"),
    );
    const service = await harness.service(port);
    const result = await harness.run("weather-kill").workflowAttach();

    expect(result).toMatchObject({ status: "done", answer: "Paid." });
    expect(ledger.count("weather-kill", "tool-start", "get_weather Delhi")).toBe(2);
    expect(ledger.count("weather-kill", "tool-end", "get_weather Delhi")).toBe(1);
    expect(ledger.count("weather-kill", "tool-start", "get_weather Pune")).toBe(1);
    expect(ledger.count("weather-kill", "tool-start", "charge")).toBe(1);
    const observation = result.messages.find((message) => message.role === "tool" && message.toolCallId === "w2");
    expect(observation?.content).toBe('{"city":"Delhi","celsius":35}');
    await expectLogReplays(harness, "weather-kill", result);
    await service.kill();
  });

  it("killed in the middle of a model call prepareStep prepared: its journaled decision is not asked for again", async () => {
    const { ledger } = harness;
    const runId = "prepare-kill";
    const run = harness.client("prepared", runId);
    const service = await harness.service(port, { BLOCK: "model:2" });
    await run.workflowSubmit({ task: task(runId, "pay") });
    await waitUntil(() => ledger.has(runId, "model-start", "step 2"), {
      what: "the second model call to start",
      failIf: () => deadService(service),
    });
    await service.kill();
    const second = await harness.service(port);
    const result = await run.workflowAttach();

    expect(result).toMatchObject({ status: "done", answer: "Paid.", steps: 3 });
    expect(ledger.count(runId, "model-start", "step 2")).toBe(2);
    expect([1, 2, 3].map((step) => ledger.count(runId, "prepare", `step ${step}`))).toEqual([1, 1, 1]);
    const log = await harness.store.read(runId);
    expect(log.filter((event) => event.type === "step.prepared")).toMatchObject([
      { step: 1, system: "Step 1." },
      { step: 2, system: "Step 2." },
      { step: 3, system: "Step 3." },
    ]);
    expect(parseEventLog(runId, await run.events())).toEqual(log);
    const { runId: _id, ...rest } = result;
    expect(replayRun(log, { runId }).result).toEqual(rest);
    await second.kill();
  });

  it("killed while a child workflow runs a tool: every run of the tree ends once, and no tool runs twice", async () => {
    const { ledger } = harness;
    const runId = "tree-kill";
    const child = "tree-kill-child";
    const run = harness.client("tree", runId);
    const service = await harness.service(port, { BLOCK: "tool:charge" });
    await run.workflowSubmit({ task: task(runId, "delegate") });
    await waitUntil(() => ledger.has(child, "tool-start", "charge"), {
      what: "the child's charge to start",
      failIf: () => deadService(service),
    });
    await service.kill();
    const second = await harness.service(port);
    const result = await run.workflowAttach();

    expect(result).toMatchObject({ status: "done", answer: "Delegated.", steps: 2 });
    expect([1, 2].map((step) => ledger.count(runId, "model-start", `step ${step}`))).toEqual([1, 1]);
    expect([1, 2, 3].map((step) => ledger.count(child, "model-end", `step ${step}`))).toEqual([1, 1, 1]);
    for (const tool of ["get_weather Pune", "get_weather Delhi", "charge"]) {
      expect(ledger.count(child, "tool-start", tool), tool).toBe(1);
    }
    // The child's charge was cut off: its result is lost, never run again; the child still answered.
    const observation = result.messages.find((message) => message.role === "tool" && message.toolCallId === "h1");
    expect(observation?.content).toBe("Paid.");
    const parentLog = await harness.store.read(runId);
    const childLog = await harness.store.read(`${runId}.h1`);
    expect(countEvents(parentLog, "run.finished")).toBe(1);
    expect(countEvents(childLog, "run.started")).toBe(1);
    expect(countEvents(childLog, "run.finished")).toBe(1);
    expect(countEvents(childLog, "tool.finished", "p1")).toBe(1);
    expect(childLog.find((event) => event.type === "tool.finished" && event.callId === "p1")).toMatchObject({
      content: expect.stringMatching(/^ERROR: the result of charge was lost/),
    });
    expect(parentLog.find((event) => event.type === "tool.finished")).toMatchObject({ childRunId: `${runId}.h1` });
    const { runId: _id, ...rest } = result;
    expect(replayRun(parentLog, { runId }).result).toEqual(rest);
    await second.kill();
  });

  it("approval across a restart: the run waits durably, a decision sent while the service is down is delivered once it is back", async () => {
    const { ledger } = harness;
    const first = await harness.service(port);
    const run = harness.run("mail-restart");
    await run.workflowSubmit({ task: task("mail-restart", "mail") });
    const waiting = await waitUntil(
      async () => {
        const status = await run.status();
        return status.phase === "awaiting_approval" ? status : null;
      },
      { what: "the run to wait for a decision", failIf: () => deadService(first) },
    );
    expect(waiting.awaitingDecision.map((call) => call.id)).toEqual(["m1"]);
    await first.kill();

    const decided = run.decide({ callId: "m1", approved: true });
    const second = await harness.service(port);
    await decided;
    const result = await run.workflowAttach();

    expect(result).toMatchObject({ status: "done", answer: "Mailed.", steps: 2 });
    expect(ledger.count("mail-restart", "tool-start", "send_email")).toBe(1);
    expect(ledger.count("mail-restart", "model-start", "step 1")).toBe(1);
    const log = await expectLogReplays(harness, "mail-restart", result);
    expect(log.find((event) => event.type === "approval.decided")).toMatchObject({ callId: "m1", approved: true });
    expect((await run.status()).phase).toBe("finished");
    await second.kill();
  });

  it("a question across a restart: the run waits durably, an answer sent while the service is down is taken once it is back", async () => {
    const { ledger } = harness;
    const first = await harness.service(port);
    const run = harness.run("ask-restart");
    await run.workflowSubmit({ task: task("ask-restart", "ask") });
    const waiting = await waitUntil(
      async () => {
        const status = await run.status();
        return status.phase === "awaiting_input" ? status : null;
      },
      { what: "the run to wait for an answer", failIf: () => deadService(first) },
    );
    expect(waiting.pendingQuestions).toMatchObject([{ id: "q1", question: "Which city?" }]);
    await first.kill();

    // The answer is checked and kept by the server's shared handler: it needs the service, so it waits for it.
    const answered = run.answer({ callId: "q1", answer: { city: "Pune" } });
    const second = await harness.service(port);
    await answered;
    const result = await run.workflowAttach();

    expect(result).toMatchObject({ status: "done", answer: "Asked.", steps: 3 });
    expect([1, 2, 3].map((step) => ledger.count("ask-restart", "model-start", `step ${step}`))).toEqual([1, 1, 1]);
    expect(ledger.count("ask-restart", "tool-start", "get_weather Pune")).toBe(1);
    const observation = result.messages.find((message) => message.role === "tool" && message.toolCallId === "q1");
    expect(observation?.content).toBe('{"city":"Pune"}');
    const log = await expectLogReplays(harness, "ask-restart", result);
    expect(log.filter((event) => event.type === "question.answered")).toMatchObject([{ callId: "q1" }]);
    // The run has ended: no question of it waits any more.
    await expect(run.answer({ callId: "q1", answer: { city: "Goa" } })).rejects.toThrow(/questions that wait: none/);
    await second.kill();
  });
});

/** Why waiting on a service is pointless: it is gone. */
function deadService(service: ServiceProcess): string | null {
  const gone = service.gone();
  return gone === null ? null : `the service ${gone}: ${service.stderr()}`;
}
