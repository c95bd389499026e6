import { request as httpRequest } from "node:http";
import { chatHandler } from "@agentloop/ai-sdk";
import { MemoryEventStore, type Model, ToolRegistry } from "@agentloop/core";
import { final, foreignRequests } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { listen } from "./chat-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** Sends a raw HTTP request with exactly these headers (fetch would not send a foreign Host). */
function send(url: string, method: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = "";
      res.on("data", (chunk) => {
        text += String(chunk);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const BODY = JSON.stringify({
  id: "c",
  messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Hi." }] }],
});

async function served(options: { allowedOrigins?: readonly string[] } = {}) {
  const store = new MemoryEventStore();
  let calls = 0;
  const model: Model = () => {
    calls++;
    return final("Hello.");
  };
  const server = await listen(chatHandler({ model, registry: new ToolRegistry(), store, ...options }));
  closers.push(server.close);
  return { url: server.url, store, calls: () => calls };
}

describe("chatHandler takes nothing from another site", () => {
  it("refuses 403 what a foreign page or a rebound name sends; nothing runs, nothing is logged", async () => {
    const { url, store, calls } = await served();
    const host = new URL(url).host;
    for (const headers of foreignRequests(host)) expect((await send(url, "POST", headers, BODY)).status).toBe(403);
    const preflight = await send(url, "OPTIONS", {
      origin: "https://evil.example",
      "access-control-request-method": "POST",
      host,
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    expect((await send(`${url}/c/messages`, "GET", { host: "evil.example" })).status).toBe(403);
    expect(await store.read("c")).toEqual([]);
    expect(calls()).toBe(0);
  });

  it("serves a request without Origin, and a page of an origin named in allowedOrigins, with CORS headers", async () => {
    const { url, store } = await served({ allowedOrigins: ["http://localhost:5173"] });
    const host = new URL(url).host;
    const plain = await send(url, "POST", { host, "content-type": "application/json" }, BODY);
    expect(plain.status).toBe(200);
    const page = { origin: "http://localhost:5173", host, "content-type": "application/json" };
    const preflight = await send(url, "OPTIONS", { ...page, "access-control-request-method": "POST" });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
    const next = JSON.stringify({
      id: "c",
      messages: [{ id: "u2", role: "user", parts: [{ type: "text", text: "Again." }] }],
    });
    const allowed = await send(url, "POST", page, next);
    expect(allowed.status).toBe(200);
    expect(allowed.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
    expect((await store.read("c")).filter((event) => event.type === "user.messaged")).toHaveLength(1);
  });
});
