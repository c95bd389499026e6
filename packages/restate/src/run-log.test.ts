import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { EVENT_LOG_SCHEMA_VERSION } from "@agentloop/core/store";
import type { WorkflowContext } from "@restatedev/restate-sdk";
import { describe, expect, it, onTestFinished } from "vitest";
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

describe("RunLog's mirror", () => {
  it("keeps an image's bytes once in the store's blobs, also when a retried execution logs the run again", async () => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-restate-mirror-"));
    onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
    const picture = Buffer.from("the bytes of a picture").toString("base64");
    const task = [{ type: "image", mediaType: "image/png", data: picture }] as const;
    const started = {
      type: "run.started",
      schemaVersion: EVENT_LOG_SCHEMA_VERSION,
      settings: { task, system: "", maxSteps: 4, tokenBudget: Number.POSITIVE_INFINITY, tools: [] },
    } as const;
    for (let execution = 0; execution < 2; execution++) {
      const log = new RunLog(recordingContext([]), new JsonlEventStore(directory));
      await log.append(started, "2026-12-03T00:00:00.000Z");
      await log.append(
        { type: "model.replied", reply: { content: "A picture.", toolCalls: [] } },
        "2026-12-03T00:00:01.000Z",
      );
    }
    const [line] = readFileSync(join(directory, "r1.jsonl"), "utf8").split("\n");
    expect(line).not.toContain(picture);
    expect(readdirSync(join(directory, "r1.blobs"))).toHaveLength(1);
    const events = await new JsonlEventStore(directory).read("r1");
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ settings: { task } });
  });
});
