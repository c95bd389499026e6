import { GetTaskRequest, ListTasksRequest, type Message, SendMessageRequest, Task, TaskState } from "@a2a-js/sdk";
import {
  askUserTool,
  type Message as LoopMessage,
  MemoryEventStore,
  type Model,
  ModelError,
  ToolRegistry,
} from "@agentloop/core";
import { asks, final, makeMailRegistry, scriptedModel, toolCall } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { a2aHandler } from "../src/index.js";
import { clientOf, rawRequest, serveOnLoopback, userText } from "./a2a-served.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function served(model: Model, registry = new ToolRegistry(), extra: Record<string, unknown> = {}) {
  const store = new MemoryEventStore();
  const server = await serveOnLoopback((url) =>
    a2aHandler({ model, registry, store, card: { name: "mailer", description: "Emails people.", url }, ...extra }),
  );
  closers.push(server.close);
  return { ...server, store, client: await clientOf(server.url) };
}

/** The task as the SDK's own types read it from the wire (what a strict client parses), unchanged by the round trip. */
function checked(task: Task): Task {
  expect(Task.fromJSON(Task.toJSON(task))).toEqual(task);
  return task;
}

function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
}

function asTask(sent: Awaited<ReturnType<Awaited<ReturnType<typeof clientOf>>["sendMessage"]>>): Task {
  expect("status" in sent).toBe(true);
  return checked(sent as Task);
}

describe("a2aHandler: an agentloop agent served over A2A, called with the SDK's client", () => {
  it("serves its card and answers a message with a completed task whose id is the run's", async () => {
    const { client, store } = await served(scriptedModel([final("Hello.")]));
    const card = await client.getAgentCard();
    expect(card.name).toBe("mailer");
    expect(card.capabilities?.streaming).toBe(true);
    const task = asTask(await client.sendMessage(userText("Hi.")));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.id).toBe(`${task.contextId}.1`);
    expect(task.artifacts.map((artifact) => artifact.parts[0]?.content)).toEqual([{ $case: "text", value: "Hello." }]);
    expect(task.history.map(textOf)).toEqual(["Hi.", "Hello."]);
    expect((await store.read(task.id))[0]?.type).toBe("run.started");
  });

  it("pauses for an approval as input-required with the call in its status message; a follow-up on the task approves it", async () => {
    const { registry, sent } = makeMailRegistry({ needsApproval: true });
    const model = scriptedModel([asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent to ana.")]);
    const { client } = await served(model, registry);
    const paused = asTask(await client.sendMessage(userText("Email ana.")));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(paused.status?.message)).toBe('Approve send_email with {"to":"ana"}? Answer yes or no.');
    expect(paused.status?.message?.metadata).toEqual({
      agentloop: { approvals: [{ id: "e1", name: "send_email", args: { to: "ana" } }], questions: [] },
    });
    expect(sent).toEqual([]);
    // GetTask says the same from the log: never "completed" while it waits (mastra#19914).
    const read = checked(await client.getTask(GetTaskRequest.fromJSON({ id: paused.id })));
    expect(read.status).toEqual(paused.status);
    const done = asTask(await client.sendMessage(userText("yes", { taskId: paused.id, contextId: paused.contextId })));
    expect(done.id).toBe(paused.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sent).toEqual(["ana"]);
    expect(done.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "Sent to ana." });
  });

  it("denies with a no, and refuses an answer that is neither", async () => {
    const { registry, sent } = makeMailRegistry({ needsApproval: true });
    const model = scriptedModel([asks(toolCall("e1", "send_email", { to: "ana" })), final("Not sent.")]);
    const { client } = await served(model, registry);
    const paused = asTask(await client.sendMessage(userText("Email ana.")));
    await expect(client.sendMessage(userText("perhaps", { taskId: paused.id }))).rejects.toThrow(/answer yes or no/);
    const done = asTask(await client.sendMessage(userText("no, not today", { taskId: paused.id })));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sent).toEqual([]);
  });

  it("asks the user's question as input-required; the follow-up's text is the answer", async () => {
    const registry = new ToolRegistry([askUserTool()]);
    let seen = "";
    const model: Model = (messages) => {
      const answer = messages.find((message) => message.role === "tool");
      if (answer === undefined) return asks(toolCall("q1", "ask_user", { question: "Which city?" }));
      seen = String(answer.content);
      return final("Lima it is.");
    };
    const { client } = await served(model, registry);
    const paused = asTask(await client.sendMessage(userText("Book a trip.")));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(paused.status?.message)).toBe("Which city?");
    const done = asTask(await client.sendMessage(userText("Lima", { taskId: paused.id })));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(seen).toBe('"Lima"');
  });

  it("keeps a context as one conversation: its next task goes on from the transcript, and ListTasks names both", async () => {
    const seen: LoopMessage[][] = [];
    const model: Model = (messages) => {
      seen.push([...messages]);
      return final(seen.length === 1 ? "Hello." : "Again.");
    };
    const { client } = await served(model);
    const first = asTask(await client.sendMessage(userText("Hi.")));
    const second = asTask(await client.sendMessage(userText("And?", { contextId: first.contextId })));
    expect(second.id).toBe(`${first.contextId}.2`);
    expect(second.contextId).toBe(first.contextId);
    expect(seen[1]?.filter((message) => message.role !== "system").map((message) => message.content)).toEqual([
      "Hi.",
      "Hello.",
      "And?",
    ]);
    // A task that ended takes no more messages; a message that names another context than its task's is refused.
    await expect(client.sendMessage(userText("More?", { taskId: first.id }))).rejects.toThrow(/turn has ended/);
    await expect(client.sendMessage(userText("More?", { taskId: second.id, contextId: "other" }))).rejects.toThrow(
      /contextId 'other'/,
    );
    const listed = await client.listTasks(ListTasksRequest.fromJSON({ contextId: first.contextId }));
    expect(listed.tasks.map((task) => task.id).sort()).toEqual([first.id, second.id]);
    expect(listed.tasks.every((task) => task.history.length === 0)).toBe(true);
  });

  it("streams a turn that pauses to its input-required end, and the follow-up's stream to completed (no endless working)", async () => {
    const { registry } = makeMailRegistry({ needsApproval: true });
    const model = scriptedModel([asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent to ana.")]);
    const { client } = await served(model, registry);
    const first = [];
    for await (const event of client.sendMessageStream(userText("Email ana."))) first.push(event);
    expect(first.map((event) => event.payload?.$case)).toEqual(["task", "statusUpdate"]);
    const paused = first.at(-1)?.payload;
    expect(paused?.$case === "statusUpdate" && paused.value.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const taskId = paused?.$case === "statusUpdate" ? paused.value.taskId : "";
    const second = [];
    for await (const event of client.sendMessageStream(userText("yes", { taskId }))) second.push(event);
    expect(second.map((event) => event.payload?.$case)).toEqual([
      "task",
      "statusUpdate",
      "artifactUpdate",
      "statusUpdate",
    ]);
    const running = second[1]?.payload;
    expect(running?.$case === "statusUpdate" && running.value.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(running?.$case === "statusUpdate" && textOf(running.value.status?.message)).toBe("Running send_email.");
    const end = second.at(-1)?.payload;
    expect(end?.$case === "statusUpdate" && end.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("follows a working task with SubscribeToTask to its end, and cancels a waiting one", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { registry } = makeMailRegistry({ needsApproval: true });
    let step = 0;
    const model: Model = async () => {
      step++;
      if (step === 1) {
        await gate;
        return final("Slow hello.");
      }
      return asks(toolCall("e1", "send_email", { to: "ana" }));
    };
    const { client } = await served(model, registry);
    const working = asTask(
      await client.sendMessage({ ...userText("Hi."), configuration: { returnImmediately: true } } as never),
    );
    expect(working.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const followed = (async () => {
      const events = [];
      for await (const event of client.resubscribeTask({ id: working.id, tenant: "" })) events.push(event);
      return events;
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    const events = await followed;
    expect(events.map((event) => event.payload?.$case)).toEqual(["task", "artifactUpdate", "statusUpdate"]);
    await expect(client.resubscribeTask({ id: working.id, tenant: "" }).next()).rejects.toThrow(/has ended/);
    const waiting = asTask(await client.sendMessage(userText("Email ana.")));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const cancelled = checked(await client.cancelTask({ id: waiting.id, tenant: "", metadata: undefined }));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ id: waiting.id, tenant: "", metadata: undefined })).rejects.toThrow(/has ended/);
  });

  it("masks a failure: the task fails with 'the agent failed (<task id>)', the detail goes to onError", async () => {
    const errors: unknown[] = [];
    const model: Model = (messages) => {
      throw new ModelError("401 invalid x-api-key sk-secret", { messages, step: 1 });
    };
    const { client } = await served(model, new ToolRegistry(), { onError: (error: unknown) => errors.push(error) });
    const failed = asTask(await client.sendMessage(userText("Hi.")));
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(failed.status?.message)).toBe(`the agent failed (${failed.id})`);
    expect(JSON.stringify(failed)).not.toContain("sk-secret");
    expect(errors.map(String)).toEqual([expect.stringContaining("invalid x-api-key")]);
    const read = await client.getTask(GetTaskRequest.fromJSON({ id: failed.id }));
    expect(read.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const exposed = await served(model, new ToolRegistry(), { exposeErrors: true });
    const told = asTask(await exposed.client.sendMessage(userText("Hi.")));
    expect(textOf(told.status?.message)).toContain("invalid x-api-key");
  });

  it("pages ListTasks newest first, filters it by state, and refuses a file part it cannot run", async () => {
    const { client } = await served((messages) => final(`Hello ${messages.length}.`));
    const ids: string[] = [];
    for (const text of ["One.", "Two.", "Three."]) ids.push(asTask(await client.sendMessage(userText(text))).id);
    const first = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 2 }));
    expect(first.tasks).toHaveLength(2);
    expect(first.totalSize).toBe(3);
    const rest = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 2, pageToken: first.nextPageToken }));
    expect(rest.nextPageToken).toBe("");
    expect([...first.tasks, ...rest.tasks].map((task) => task.id).sort()).toEqual([...ids].sort());
    const working = await client.listTasks(ListTasksRequest.fromJSON({ status: "TASK_STATE_WORKING" }));
    expect(working.tasks).toEqual([]);
    const file = SendMessageRequest.fromJSON({
      message: {
        messageId: "m1",
        role: "ROLE_USER",
        parts: [{ url: "https://example.com/a.pdf", mediaType: "application/pdf" }],
      },
    });
    await expect(client.sendMessage(file)).rejects.toThrow(/file part/);
  });

  it("refuses 405 a GET that is not the card, and answers a JSON-RPC request without a version header as the SDK's server does", async () => {
    const { url } = await served(scriptedModel([final("Hello.")]));
    const host = new URL(url).host;
    expect((await rawRequest(`${url}/`, "GET", { host })).status).toBe(405);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x.1" } });
    const old = await rawRequest(`${url}/`, "POST", { host, "content-type": "application/json" }, body);
    expect(JSON.parse(old.text).error.message).toMatch(/version/i);
  });
});
