import { GetTaskRequest, TaskState } from "@a2a-js/sdk";
import { MemoryEventStore, resumeAgent, runAgent, ToolRegistry } from "@agentloop/core";
import { asks, final, makeMailRegistry, scriptedModel, toolCall } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { a2aAgentTool, a2aHandler } from "../src/index.js";
import { clientOf, serveOnLoopback } from "./a2a-served.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("an agentloop agent calls another served over A2A", () => {
  it("the remote's approval pauses the caller; a denial goes to the same remote task, once, and nothing is sent", async () => {
    const { registry, sent } = makeMailRegistry({ needsApproval: true });
    const remoteStore = new MemoryEventStore();
    const server = await serveOnLoopback((url) =>
      a2aHandler({
        model: scriptedModel([asks(toolCall("e1", "send_email", { to: "ana" })), final("I did not email ana.")]),
        registry,
        store: remoteStore,
        card: { name: "mailer", description: "Emails people.", url },
      }),
    );
    closers.push(server.close);
    const tools = new ToolRegistry([a2aAgentTool({ url: server.url, name: "mailer", pollMs: 10 })]);
    const model = scriptedModel([
      asks(toolCall("m1", "mailer", { task: "Email ana." })),
      final("Ana was not emailed."),
    ]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Email ana.", model, tools, { store, runId: "caller" });
    expect(paused.status).toBe("awaiting_input");
    expect(paused.pendingQuestions?.map((question) => question.id)).toEqual(["m1"]);

    // The caller logged the remote task's ids before it waited: they name the remote's run.
    const notes = (await store.read("caller")).flatMap((event) => (event.type === "tool.noted" ? [event.note] : []));
    const { contextId } = notes[0] as { contextId: string };
    const { taskId } = notes[1] as { taskId: string };
    expect(taskId).toBe(`${contextId}.1`);
    expect((await remoteStore.list()).map((run) => run.runId)).toEqual([taskId]);

    const done = await resumeAgent("caller", model, tools, { store, answers: { m1: "no" } });
    expect(done.status).toBe("done");
    expect(sent).toEqual([]);
    const remote = await (await clientOf(server.url)).getTask(GetTaskRequest.fromJSON({ id: taskId }));
    expect(remote.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(remote.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "I did not email ana." });
    const decided = (await remoteStore.read(taskId)).filter((event) => event.type === "approval.decided");
    expect(decided).toEqual([expect.objectContaining({ callId: "e1", approved: false, reason: "no" })]);
  });
});
