import { request as httpRequest } from "node:http";
import { MemoryEventStore, type Model, ToolRegistry } from "@agentloop/core";
import { final, foreignRequests } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { serveAgentHttp } from "../src/index.js";
import { listenMcp } from "./http-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function served() {
  const store = new MemoryEventStore();
  let calls = 0;
  const model: Model = () => {
    calls++;
    return final("Hello.");
  };
  const handler = serveAgentHttp({
    name: "agent",
    description: "An agent.",
    model,
    registry: new ToolRegistry(),
    store,
  });
  const http = await listenMcp((request) => handler.fetch(request));
  const url = http.url.href;
  closers.push(async () => {
    await handler.close();
    await http.close();
  });
  return { url, store, calls: () => calls };
}

/** A raw HTTP POST with exactly these headers (fetch would not send a foreign Host); its status. */
function post(url: string, headers: Record<string, string>, body: object) {
  return new Promise<number>((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const accept = "application/json, text/event-stream";
const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "rebinding", version: "1.0.0" } },
};
const call = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "agent", arguments: { task: "Hi.", runId: "foreign" } },
};

describe("serveAgentHttp takes nothing from another site", () => {
  it("refuses a foreign Host and Origin as the MCP conformance scenario dns-rebinding-protection sends them, and accepts its localhost ones", async () => {
    const { url } = await served();
    const evil = "evil.example.com";
    expect(
      await post(url, { "content-type": "application/json", accept, host: evil, origin: `http://${evil}` }, initialize),
    ).toBe(403);
    const host = new URL(url).host;
    expect(
      await post(url, { "content-type": "application/json", accept, host, origin: `http://${host}` }, initialize),
    ).toBe(200);
  });

  it("refuses 403 a foreign page's calls (the no-preflight text/plain one too); nothing runs, nothing is logged", async () => {
    const { url, store, calls } = await served();
    const host = new URL(url).host;
    for (const headers of foreignRequests(host)) {
      expect(await post(url, { ...headers, accept }, call)).toBe(403);
    }
    expect(await store.read("foreign")).toEqual([]);
    expect(calls()).toBe(0);
  });
});
