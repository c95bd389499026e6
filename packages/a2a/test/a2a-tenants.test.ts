import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetTaskRequest, type Task, TaskState } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { MemoryEventStore, type Model, type Principal, ToolRegistry } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { asks, final, foreignRequests, makeMailRegistry, toolCall } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { a2aHandler } from "../src/index.js";
import { clientOf, rawRequest, serveOnLoopback, userText } from "./a2a-served.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const PRINCIPALS: Readonly<Record<string, Principal>> = {
  "Bearer ana": { tenant: "acme", user: "ana" },
  "Bearer bo": { tenant: "globex", user: "bo" },
};

async function served() {
  const store = new MemoryEventStore();
  const { registry, sent } = makeMailRegistry({ needsApproval: true });
  let calls = 0;
  const model: Model = (messages) => {
    calls++;
    return messages.some((message) => message.role === "tool")
      ? final("Sent.")
      : asks(toolCall("e1", "send_email", { to: "ana" }));
  };
  const server = await serveOnLoopback((url) =>
    a2aHandler({
      model,
      registry,
      store,
      card: { name: "mailer", description: "Emails people.", url },
      authorize: (request) =>
        PRINCIPALS[request.headers.get("authorization") ?? ""] ?? new Response("sign in", { status: 401 }),
    }),
  );
  closers.push(server.close);
  return { ...server, store, sent, calls: () => calls };
}

/** What the request throws, as a client sees it: the error's class and words, with the task id named as `<id>`. */
async function refusal(work: () => Promise<unknown>, id: string): Promise<{ name: string; message: string }> {
  try {
    await work();
  } catch (error) {
    const { name, message } = error as Error;
    return { name, message: message.replaceAll(id, "<id>") };
  }
  throw new Error("the request was not refused");
}

/** Every verb on task `id`, as `client` asks it. */
function verbs(client: Client, id: string): Record<string, () => Promise<unknown>> {
  return {
    get: () => client.getTask(GetTaskRequest.fromJSON({ id })),
    send: () => client.sendMessage(userText("yes", { taskId: id })),
    cancel: () => client.cancelTask({ id, tenant: "", metadata: undefined }),
    resubscribe: () => client.resubscribeTask({ id, tenant: "" }).next(),
    stream: () => client.sendMessageStream(userText("yes", { taskId: id })).next(),
  };
}

describe("a2aHandler: who is asking", () => {
  it("answers another tenant's task on every verb exactly as an unknown task; nothing runs, nothing is logged", async () => {
    const { url, store, sent, calls } = await served();
    const ana = await clientOf(url, { authorization: "Bearer ana" });
    const bo = await clientOf(url, { authorization: "Bearer bo" });
    const task = (await ana.sendMessage(userText("Email ana."))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const logged = (await store.read(task.id)).length;
    const modelCalls = calls();
    const unknown = `${task.contextId}.9`;
    for (const [verb, ask] of Object.entries(verbs(bo, task.id))) {
      const foreign = await refusal(ask, task.id);
      const none = await refusal(verbs(bo, unknown)[verb] as () => Promise<unknown>, unknown);
      expect(foreign, verb).toEqual(none);
      expect(foreign.name, verb).toBe(TaskNotFoundError.name);
    }
    const listed = await bo.listTasks({ contextId: task.contextId } as never);
    expect(listed.tasks).toEqual([]);
    // A new task in ana's context cannot start there: the id is taken, and nothing says whose.
    const taken = await refusal(() => bo.sendMessage(userText("Hi.", { contextId: task.contextId })), task.id);
    expect(taken.message).toMatch(/the id is taken/);
    expect((await store.list()).map((run) => run.runId)).toEqual([task.id]);
    expect((await store.read(task.id)).length).toBe(logged);
    expect(calls()).toBe(modelCalls);
    expect(sent).toEqual([]);
    // Ana's task is hers still: she approves it.
    const done = (await ana.sendMessage(userText("yes", { taskId: task.id }))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sent).toEqual(["ana"]);
  });

  it("refuses a request authorize refuses, as authorize answers it", async () => {
    const { url } = await served();
    const host = new URL(url).host;
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x.1" } });
    const answer = await rawRequest(`${url}/`, "POST", { host, "content-type": "application/json" }, body);
    expect(answer.status).toBe(401);
  });
});

describe("a2aHandler takes nothing from another site", () => {
  it("refuses 403 what a foreign page or a rebound name sends, the card included; nothing runs, nothing is logged", async () => {
    const { url, store, calls } = await served();
    const host = new URL(url).host;
    const send = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "Email ana." }] } },
    });
    for (const headers of foreignRequests(host)) {
      const withAuth = { ...headers, authorization: "Bearer ana", "a2a-version": "1.0" };
      expect((await rawRequest(`${url}/`, "POST", withAuth, send)).status).toBe(403);
      expect((await rawRequest(`${url}/.well-known/agent-card.json`, "GET", headers)).status).toBe(403);
    }
    expect(await store.list()).toEqual([]);
    expect(calls()).toBe(0);
    // The same request from no other site is served.
    const plain = { host, "content-type": "application/json", authorization: "Bearer ana", "a2a-version": "1.0" };
    const served200 = await rawRequest(`${url}/`, "POST", plain, send);
    expect(served200.status).toBe(200);
    expect(JSON.parse(served200.text).result.task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
  });
});

describe("a2aHandler: a task whose log has a torn last line (a crash mid-append)", () => {
  it("is answered to another tenant as an unknown task, and tells no client the store's file path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-secret-home-"));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const store = new JsonlEventStore(dir);
    const server = await serveOnLoopback((url) =>
      a2aHandler({
        model: () => final("Done."),
        registry: new ToolRegistry(),
        store,
        card: { name: "a", description: "A.", url },
        authorize: (request) =>
          PRINCIPALS[request.headers.get("authorization") ?? ""] ?? new Response("sign in", { status: 401 }),
      }),
    );
    closers.push(server.close);
    const ana = await clientOf(server.url, { authorization: "Bearer ana" });
    const bo = await clientOf(server.url, { authorization: "Bearer bo" });
    const task = (await ana.sendMessage(userText("Hi."))) as Task;
    appendFileSync(join(dir, `${task.id}.jsonl`), '{"type":"user.mess');

    const unknown = `${task.contextId}.9`;
    const foreign = await refusal(() => bo.getTask(GetTaskRequest.fromJSON({ id: task.id })), task.id);
    const none = await refusal(() => bo.getTask(GetTaskRequest.fromJSON({ id: unknown })), unknown);
    expect(foreign.message).not.toContain(dir);
    expect(foreign).toEqual(none);
    const own = await refusal(() => ana.getTask(GetTaskRequest.fromJSON({ id: task.id })), task.id);
    expect(own.message).not.toContain(dir);
  });
});
