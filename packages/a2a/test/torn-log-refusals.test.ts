import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetTaskRequest, type Task } from "@a2a-js/sdk";
import { type Principal, ToolRegistry } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { final } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { a2aHandler } from "../src/index.js";
import { clientOf, serveOnLoopback, userText } from "./a2a-served.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const PRINCIPALS: Readonly<Record<string, Principal>> = {
  "Bearer ana": { tenant: "acme", user: "ana" },
  "Bearer bo": { tenant: "globex", user: "bo" },
};

async function refusal(work: () => Promise<unknown>, id: string): Promise<{ name: string; message: string }> {
  try {
    await work();
  } catch (error) {
    const { name, message } = error as Error;
    return { name, message: message.replaceAll(id, "<id>") };
  }
  throw new Error("the request was not refused");
}

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
