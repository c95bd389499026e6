import type { WorkflowContext } from "@restatedev/restate-sdk";
import { describe, expect, it } from "vitest";
import { RunLog } from "./run-log.js";
import type { RunStatus } from "./types.js";

/** The one part of a workflow context `RunLog` writes through, recording each state write. */
function recordingContext(writes: string[]): WorkflowContext {
  const ctx = { key: "r1", set: (name: string) => writes.push(name) };
  return ctx as unknown as WorkflowContext;
}

function running(steps: number, runningTools: RunStatus["runningTools"] = []): RunStatus {
  const base = { runId: "r1", phase: "running", state: "callingModel", tokens: steps * 10, events: 0 } as const;
  return { ...base, steps, awaitingDecision: [], pendingQuestions: [], runningTools, result: null, error: null };
}

describe("RunLog's status", () => {
  it("is written when the phase changes, not at every wait of a running run", async () => {
    const writes: string[] = [];
    const log = new RunLog(recordingContext(writes), undefined);
    const call = { id: "c1", name: "weather", args: {} };
    for (let step = 1; step <= 5; step++) {
      await log.append({ type: "model.replied", reply: { content: "", toolCalls: [] } }, "2026-12-03T00:00:00.000Z");
      log.setStatus(running(step));
      log.setStatus(running(step, [call]));
    }
    expect(writes).toEqual(["status"]);
    log.setStatus(
      { ...running(5), phase: "awaiting_approval", awaitingDecision: [call] },
      { decisionKeys: { c1: "decision 5.0 c1" }, questionKeys: {} },
      true,
    );
    expect(writes).toEqual(["status", "events 0", "status"]);
  });

  it("is written, with the events, when a question starts to wait, and not again while it waits", async () => {
    const writes: string[] = [];
    const log = new RunLog(recordingContext(writes), undefined);
    const keys = { decisionKeys: {}, questionKeys: { q1: { key: "question 1.0 q1", tool: "ask_user" } } };
    await log.append({ type: "model.replied", reply: { content: "", toolCalls: [] } }, "2026-12-03T00:00:00.000Z");
    const waiting = {
      ...running(1),
      phase: "awaiting_input",
      pendingQuestions: [{ id: "q1", question: "Which city?" }],
    } as const;
    log.setStatus(waiting, keys, true);
    log.setStatus(waiting, keys, true);
    expect(writes).toEqual(["events 0", "status"]);
    expect(log.statusDue).toBe(true);
  });
});
