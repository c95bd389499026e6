import { request as httpRequest } from "node:http";
import { askUserTool, MemoryEventStore, type Model, type Principal, ToolRegistry } from "@agentloop/core";
import { asks, final, foreignRequests, toolCall } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { agUiHandler } from "../src/index.js";
import { input } from "./fixture.js";
import { serveOnLoopback } from "./http-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const TOKENS: Readonly<Record<string, Principal>> = {
  "acme-token": { tenant: "acme" },
  "globex-token": { tenant: "globex" },
};
const authorize = (request: Request): Principal | Response =>
  TOKENS[(request.headers.get("authorization") ?? "").replace(/^Bearer /, "")] ??
  Response.json({ error: "sign in first" }, { status: 401 });

/** A model that asks for the tool the thread's last message names, then answers. */
const model: Model = (messages) => {
  const last = messages.at(-1);
  if (last?.role !== "user") return final("Done.");
  const text = JSON.stringify(last.content);
  if (text.includes("Email")) return asks(toolCall("e1", "send", {}));
  if (text.includes("Ask")) return asks(toolCall("q1", "ask_user", { question: "Where?" }));
  return final("Done.");
};

async function served(options: { allowedOrigins?: readonly string[] } = {}) {
  const store = new MemoryEventStore();
  let calls = 0;
  const counted: Model = (messages, tools, settings) => {
    calls++;
    return model(messages, tools, settings);
  };
  const registry = new ToolRegistry([askUserTool()]);
  registry.register("send", "Send.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
  const handler = agUiHandler({ model: counted, registry, store, authorize, ...options });
  const server = await serveOnLoopback(handler);
  closers.push(server.close);
  const post = (body: object, token?: string) =>
    fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  for (const [thread, text] of [
    ["ended", "Hi."],
    ["waits", "Email ana."],
    ["asking", "Ask me."],
  ] as const) {
    await (await post(input(thread, "r0", text), "acme-token")).text();
  }
  return { store, post, url: server.url, calls: () => calls };
}

const VERBS: Readonly<Record<string, { thread: string; body: (id: string) => object }>> = {
  continue: { thread: "ended", body: (id) => input(id, "r1", "And now?") },
  resume: {
    thread: "waits",
    body: (id) =>
      input(id, "r1", "", { resume: [{ interruptId: "e1", status: "resolved", payload: { approved: true } }] }),
  },
  answer: {
    thread: "asking",
    body: (id) => input(id, "r1", "", { resume: [{ interruptId: "q1", status: "resolved", payload: "Lima" }] }),
  },
};

describe("agUiHandler with authorize: every verb × own, another tenant's, no principal", () => {
  it("another tenant gets what an unknown thread gets (a new message: refused), none gets 401; nothing runs, nothing is logged", async () => {
    const s = await served();
    for (const [verb, { thread, body }] of Object.entries(VERBS)) {
      const before = (await s.store.read(thread)).length;
      const calls = s.calls();
      const other = await s.post(body(thread), "globex-token");
      const otherError = ((await other.json()) as { error: string }).error;
      if (verb === "continue") {
        expect([verb, other.status, otherError]).toEqual([
          verb,
          409,
          "thread 'ended' cannot be started: the id is taken; start the conversation under another",
        ]);
      } else {
        const unknown = await s.post(body("nobody"), "globex-token");
        const unknownError = ((await unknown.json()) as { error: string }).error.replaceAll("nobody", thread);
        expect([verb, other.status, otherError]).toEqual([verb, 404, unknownError]);
      }
      const none = await s.post(body(thread));
      expect([verb, none.status]).toEqual([verb, 401]);
      expect((await s.store.read(thread)).length).toBe(before);
      expect(s.calls()).toBe(calls);
    }
    expect(await s.store.read("nobody")).toEqual([]);
  });

  it("the owner's own requests go through on every verb", async () => {
    const s = await served();
    for (const [verb, { thread, body }] of Object.entries(VERBS)) {
      const response = await s.post(body(thread), "acme-token");
      expect([verb, response.status]).toEqual([verb, 200]);
      expect(await response.text()).toContain("RUN_FINISHED");
    }
  });
});

/** A raw HTTP request with exactly these headers (fetch would not send a foreign Host). */
function send(url: string, headers: Record<string, string>, body: string) {
  return new Promise<number>((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("agUiHandler takes nothing from another site", () => {
  it("refuses 403 a foreign page's POST (the no-preflight text/plain one too) and a rebound name's; nothing runs, nothing is logged", async () => {
    const s = await served();
    const host = new URL(s.url).host;
    const body = JSON.stringify(input("fresh", "r1", "Hi."));
    const auth = { authorization: "Bearer acme-token" };
    for (const headers of foreignRequests(host)) {
      expect(await send(s.url, { ...auth, ...headers }, body)).toBe(403);
    }
    expect(await s.store.read("fresh")).toEqual([]);
    const calls = s.calls();
    expect(await send(s.url, { ...auth, host, "content-type": "application/json" }, body)).toBe(200);
    expect(s.calls()).toBe(calls + 1);
  });
});
