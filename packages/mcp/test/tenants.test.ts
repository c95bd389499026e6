import { MemoryEventStore, type Model, type Principal, runAgent, ToolRegistry } from "@agentloop/core";
import { asks, final, toolCall } from "@agentloop/core/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { serveAgentHttp } from "../src/index.js";
import { listenMcp } from "./http-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const TOKENS: Readonly<Record<string, Principal>> = {
  "acme-token": { tenant: "acme" },
  "globex-token": { tenant: "globex" },
};
const authorize = (request: Request): Principal | Response =>
  TOKENS[(request.headers.get("authorization") ?? "").replace(/^Bearer /, "")] ??
  Response.json({ error: "sign in first" }, { status: 401 });

/** A model that asks to send an email when the task says so, else answers. */
const model: Model = (messages) => {
  const last = messages.at(-1);
  if (last?.role === "user" && JSON.stringify(last.content).includes("Email")) return asks(toolCall("e1", "send", {}));
  return final("Done.");
};

/** An agent served over HTTP with authorize, with acme's runs "ended" and "waits" (for an approval) in its store. */
async function served() {
  const store = new MemoryEventStore();
  let calls = 0;
  const counted: Model = (messages, tools, options) => {
    calls++;
    return model(messages, tools, options);
  };
  const registry = new ToolRegistry();
  registry.register("send", "Send.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
  const owner = { tenant: "acme" };
  await runAgent("Hi.", counted, registry, { store, runId: "ended", owner });
  await runAgent("Email ana.", counted, registry, { store, runId: "waits", owner });
  const handler = serveAgentHttp({
    name: "agent",
    description: "An agent.",
    model: counted,
    registry,
    store,
    authorize,
  });
  const http = await listenMcp((request) => handler.fetch(request));
  const { url } = http;
  closers.push(async () => {
    await handler.close();
    await http.close();
  });
  const client = async (token: string) => {
    const connected = new Client({ name: "tenant", version: "1.0.0" });
    const headers = { authorization: `Bearer ${token}` };
    await connected.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    closers.push(() => connected.close());
    return connected;
  };
  return { store, url, client, calls: () => calls };
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";
/** What a request answers: a result's text (flagged when an error), or the protocol error's message. */
async function outcome(request: Promise<unknown>): Promise<string> {
  try {
    const result = (await request) as { isError?: boolean; status?: string };
    if (typeof result.status === "string") return `task ${result.status}`;
    return `${result.isError === true ? "error: " : ""}${text(result)}`;
  } catch (error) {
    return `thrown: ${(error as Error).message}`;
  }
}

type Verb = (client: Client, runId: string) => Promise<unknown>;
const VERBS: Readonly<Record<string, { run: string; send: Verb }>> = {
  "tools/call read": { run: "ended", send: (c, runId) => c.callTool({ name: "agent", arguments: { runId } }) },
  "tasks/get": { run: "waits", send: (c, taskId) => c.experimental.tasks.getTask(taskId) },
  "tasks/result": {
    run: "waits",
    send: (c, taskId) => c.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
  },
  "tasks/cancel": { run: "waits", send: (c, taskId) => c.experimental.tasks.cancelTask(taskId) },
};

describe("serveAgentHttp with authorize: every verb × own, another tenant's, no principal", () => {
  it("another tenant gets what an unknown run or task gets (a new message: refused), none gets 401; nothing runs, nothing is logged", async () => {
    const s = await served();
    const globex = await s.client("globex-token");
    const logs = async () => [(await s.store.read("ended")).length, (await s.store.read("waits")).length];
    const before = await logs();
    const calls = s.calls();
    for (const [verb, { run, send }] of Object.entries(VERBS)) {
      const other = await outcome(send(globex, run));
      const unknown = (await outcome(send(globex, "nobody"))).replaceAll("nobody", run);
      expect([verb, other]).toEqual([verb, unknown]);
      expect(other).toMatch(/^(error|thrown): /);
    }
    const cont = await outcome(globex.callTool({ name: "agent", arguments: { runId: "ended", task: "And now?" } }));
    expect(cont).toBe("error: run 'ended' cannot be started: the id is taken; start the conversation under another");
    const none = await fetch(s.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "agent", arguments: { runId: "ended" } },
      }),
    });
    expect(none.status).toBe(401);
    expect(await logs()).toEqual(before);
    expect(s.calls()).toBe(calls);
    expect(await s.store.read("nobody")).toEqual([]);
  });

  it("the owner's own requests go through: its run read back, its task followed and cancelled", async () => {
    const s = await served();
    const acme = await s.client("acme-token");
    expect(await outcome(acme.callTool({ name: "agent", arguments: { runId: "ended" } }))).toBe("Done.");
    expect(await outcome(acme.experimental.tasks.getTask("waits"))).toBe("task input_required");
    expect(await outcome(acme.experimental.tasks.cancelTask("waits"))).toBe("task cancelled");
    expect((await s.store.read("waits")).at(-1)).toMatchObject({
      type: "run.finished",
      outcome: { status: "cancelled" },
    });
  });

  it("a session is its principal's: another tenant's request on it is answered as one on an unknown session", async () => {
    const s = await served();
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    };
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const opened = await fetch(s.url, {
      method: "POST",
      headers: { ...headers, authorization: "Bearer acme-token" },
      body: JSON.stringify(init),
    });
    const session = opened.headers.get("mcp-session-id") ?? "";
    await opened.text();
    expect(session).not.toBe("");
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const other = await fetch(s.url, {
      method: "POST",
      headers: { ...headers, authorization: "Bearer globex-token", "mcp-session-id": session },
      body: list,
    });
    const unknown = await fetch(s.url, {
      method: "POST",
      headers: { ...headers, authorization: "Bearer globex-token", "mcp-session-id": "nobody" },
      body: list,
    });
    expect(other.status).toBe(404);
    expect((await other.text()).replaceAll(session, "x")).toBe((await unknown.text()).replaceAll("nobody", "x"));
  });
});
