import {
  final,
  MemoryEventStore,
  type Model,
  ModelError,
  type ModelReply,
  scriptedModel,
  ToolRegistry,
} from "@agentloop/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { type ServeOptions, serveAgent } from "../src/index.js";

// What a task says is what its run's log says: memory of this process never outranks it.
// The MCP SDK 1.x client's task runtime (`experimental.tasks`) is the client.

type Serve = ServeOptions & { name: string; description: string };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function served(model: Model): Serve {
  return { name: "agent", description: "Answers.", model, registry: new ToolRegistry(), store: new MemoryEventStore() };
}

async function connect(serve: Serve): Promise<Client> {
  const server = serveAgent(serve);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agentloop-test", version: "1.0.0" });
  await client.connect(clientSide as unknown as Transport);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

/** A model that answers only when `release` is called, and fails with the run's signal when the run is stopped; `asked` settles at its first call. */
function heldModel(reply: ModelReply) {
  let release: () => void = () => {};
  let wasAsked: () => void = () => {};
  const asked = new Promise<void>((resolve) => {
    wasAsked = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let calls = 0;
  const model: Model = async (_messages, _tools, { signal }) => {
    calls++;
    wasAsked();
    await new Promise<void>((resolve, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      void released.then(resolve);
    });
    return reply;
  };
  return { model, release, asked, calls: () => calls };
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";
const asTask = { task: { ttl: 60_000 } };

async function untilStatus(client: Client, taskId: string, status: string): Promise<void> {
  for (;;) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (task.status === status) return;
    await new Promise((resolve) => setTimeout(resolve, task.pollInterval ?? 50));
  }
}

describe("serveAgent's tasks read what the log says", () => {
  it("a second create of a task id is refused; the first task stays working and can still be cancelled", async () => {
    const held = heldModel(final("Hello."));
    const serve = served(held.model);
    const client = await connect(serve);
    const call = { name: "agent", arguments: { task: "Say hello.", runId: "twice" } };
    const [first, second] = await Promise.allSettled([
      client.callTool(call, undefined, asTask),
      client.callTool(call, undefined, asTask),
    ]);
    expect(first).toMatchObject({ status: "fulfilled", value: { task: { taskId: "twice", status: "working" } } });
    expect(second.status).toBe("rejected");
    expect(second.status === "rejected" && String(second.reason)).toContain("MCP error -32602: run 'twice' is already");
    await held.asked;
    expect((await client.experimental.tasks.getTask("twice")).status).toBe("working");
    expect((await client.experimental.tasks.cancelTask("twice")).status).toBe("cancelled");
    expect((await serve.store.read("twice")).at(-1)).toMatchObject({
      type: "run.finished",
      outcome: { status: "cancelled" },
    });
    expect(held.calls()).toBe(1);
  });

  it("a create for a run another writer holds is refused, and the task of that writer is not marked failed", async () => {
    const serve = served(scriptedModel([final("Hello.")]));
    const lock = await serve.store.acquire?.("held");
    const client = await connect(serve);
    const created = client.callTool(
      { name: "agent", arguments: { task: "Say hello.", runId: "held" } },
      undefined,
      asTask,
    );
    await expect(created).rejects.toThrow("MCP error -32602: run 'held' is already known");
    await lock?.release();
    await expect(client.experimental.tasks.getTask("held")).rejects.toThrow("Task not found");
  });

  it("a task that failed and was then resumed to done reads completed, as its log does", async () => {
    let calls = 0;
    const answers = scriptedModel([final("Hello at last.")]);
    const model: Model = (messages, tools, options) => {
      calls++;
      if (calls === 1) throw new ModelError("bad gateway", { retryable: false, messages, step: 1 });
      return answers(messages, tools, options);
    };
    const serve = served(model);
    const client = await connect(serve);
    await client.callTool({ name: "agent", arguments: { task: "Say hello.", runId: "again" } }, undefined, asTask);
    await untilStatus(client, "again", "failed");
    // The run is taken up from its log by a call that reads it back, and ends done.
    const read = await client.callTool({ name: "agent", arguments: { runId: "again" } });
    expect(text(read)).toBe("Hello at last.");
    expect((await serve.store.read("again")).at(-1)).toMatchObject({ outcome: { status: "done" } });
    expect((await client.experimental.tasks.getTask("again")).status).toBe("completed");
    expect(text(await client.experimental.tasks.getTaskResult("again", CallToolResultSchema))).toBe("Hello at last.");
  });

  it("tools/call { runId } for a run a task drives waits for the task's answer, running nothing twice", async () => {
    const held = heldModel(final("Hello."));
    const serve = served(held.model);
    const client = await connect(serve);
    await client.callTool({ name: "agent", arguments: { task: "Say hello.", runId: "driven" } }, undefined, asTask);
    await held.asked;
    const read = client.callTool({ name: "agent", arguments: { runId: "driven" } });
    held.release();
    expect(text(await read)).toBe("Hello.");
    expect(held.calls()).toBe(1);
    expect((await client.experimental.tasks.getTask("driven")).status).toBe("completed");
  });

  it("a task's createdAt is the same in every message about it, from its creation to its end", async () => {
    const held = heldModel(final("Hello."));
    const serve = served(held.model);
    const client = await connect(serve);
    const created = await client.callTool(
      { name: "agent", arguments: { task: "Say hello.", runId: "born" } },
      undefined,
      asTask,
    );
    const createdAt = (created as unknown as { task: { createdAt: string } }).task.createdAt;
    await held.asked;
    const working = await client.experimental.tasks.getTask("born");
    held.release();
    await untilStatus(client, "born", "completed");
    const done = await client.experimental.tasks.getTask("born");
    expect([working.createdAt, done.createdAt]).toEqual([createdAt, createdAt]);
    expect((await serve.store.read("born"))[0]?.at).toBe(createdAt);
  });
});
