import { asks, final, MemoryEventStore, runAgent, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { taskOf } from "./run-task.js";

const extras = { pollInterval: 200, startedAt: "2026-01-01T00:00:00.000Z" };

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register("send_email", "Send.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
  return tools;
}

describe("taskOf: a run's task, read from its log", () => {
  it("is working before the run logs anything, from the time the task was asked for", () => {
    expect(taskOf("r", [], extras)).toEqual({
      taskId: "r",
      status: "working",
      createdAt: extras.startedAt,
      lastUpdatedAt: extras.startedAt,
      ttl: null,
      pollInterval: 200,
    });
  });

  it("is input_required while a call waits, then completed; its times are the log's", async () => {
    const store = new MemoryEventStore();
    await runAgent("Mail.", scriptedModel([asks(toolCall("e1", "send_email", {}))]), registry(), { store, runId: "r" });
    const waiting = await store.read("r");
    expect(taskOf("r", waiting, extras)).toMatchObject({
      status: "input_required",
      statusMessage: "waiting for approval of send_email",
      createdAt: waiting[0]?.at,
      lastUpdatedAt: waiting.at(-1)?.at,
    });
    const done = new MemoryEventStore();
    await runAgent("Hi.", scriptedModel([final("Hello.")]), registry(), { store: done, runId: "d" });
    expect(taskOf("d", await done.read("d"), extras).status).toBe("completed");
  });

  it("is failed when the run ended other than done or cancelled, and with a failure the log cannot show", async () => {
    const store = new MemoryEventStore();
    await runAgent("Mail.", scriptedModel([]), registry(), { store, runId: "s", maxSteps: 0 });
    expect(taskOf("s", await store.read("s"), extras)).toMatchObject({
      status: "failed",
      statusMessage: "the run ended step_limit",
    });
    expect(taskOf("x", [], { ...extras, failure: "script ran out" })).toMatchObject({
      status: "failed",
      statusMessage: "script ran out",
    });
  });
});
