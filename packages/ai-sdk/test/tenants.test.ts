import { chatHandler } from "@agentloop/ai-sdk";
import { askUserTool, MemoryEventStore, type Model, type Principal, ToolRegistry } from "@agentloop/core";
import { runsFor } from "@agentloop/core/serve";
import { asks, final, toolCall } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { listen } from "./chat-server.js";
import { until } from "./gate.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** Who a request is: its bearer token names a tenant; without one it is refused 401. */
const TOKENS: Readonly<Record<string, Principal>> = {
  "acme-token": { tenant: "acme" },
  "globex-token": { tenant: "globex" },
};
const authorize = (request: Request): Principal | Response =>
  TOKENS[(request.headers.get("authorization") ?? "").replace(/^Bearer /, "")] ??
  new Response("sign in first", { status: 401 });
const CALLERS = { own: "acme-token", other: "globex-token", none: undefined } as const;

/** A model that asks for the tool the conversation's last message names, then answers. */
const model: Model = (messages) => {
  const last = messages.at(-1);
  if (last?.role !== "user") return final("Done.");
  const text = JSON.stringify(last.content);
  if (text.includes("Email")) return asks(toolCall(`e${messages.length}`, "send", {}));
  if (text.includes("Ask")) return asks(toolCall(`q${messages.length}`, "ask_user", { question: "Where?" }));
  if (text.includes("Slow")) return asks(toolCall(`s${messages.length}`, "slow", {}));
  return final("Done.");
};

/** A served agent with one chat of acme's in every state a verb needs: ended, waiting for a decision, for an answer, still going. */
async function served() {
  const store = new MemoryEventStore();
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let calls = 0;
  const counted: Model = (messages, tools, options) => {
    calls++;
    return model(messages, tools, options);
  };
  const registry = new ToolRegistry([askUserTool()]);
  registry.register("send", "Send.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
  registry.register("slow", "Slow.", { type: "object", properties: {} }, async () => {
    await gate;
    return "slow done";
  });
  const server = await listen(chatHandler({ model: counted, registry, store, authorize }));
  closers.push(async () => {
    release();
    await server.close();
  });
  const post = (id: string, message: object, token?: string) =>
    fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ id, messages: [message] }),
    });
  const get = (id: string, what: "stream" | "messages", token?: string) =>
    fetch(`${server.url}/${id}/${what}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  for (const [id, text] of [
    ["ended", "Hi."],
    ["waits", "Email ana."],
    ["asking", "Ask me."],
  ]) {
    await (await post(id as string, user(text as string), "acme-token")).text();
  }
  const going = await post("going", user("Slow, please."), "acme-token");
  await until(async () => (await store.read("going")).some((event) => event.type === "tool.started"));
  return { store, post, get, release, going, calls: () => calls };
}

const user = (text: string) => ({ id: `u-${text}`, role: "user", parts: [{ type: "text", text }] });
const approving = (id: string) => ({
  id: "a1",
  role: "assistant",
  parts: [
    { type: "tool-send", toolCallId: id, state: "approval-responded", input: {}, approval: { id, approved: true } },
  ],
});
const answering = (id: string) => ({
  id: "a2",
  role: "assistant",
  parts: [{ type: "tool-ask_user", toolCallId: id, state: "output-available", input: {}, output: "Lima" }],
});

type Served = Awaited<ReturnType<typeof served>>;
/** Each verb of the door: the request on a chat, by its id and the caller's token. */
const VERBS: Readonly<
  Record<string, { chat: string; send: (s: Served, id: string, token?: string) => Promise<Response> }>
> = {
  continue: { chat: "ended", send: (s, id, token) => s.post(id, user("And now?"), token) },
  resume: { chat: "waits", send: (s, id, token) => s.post(id, approving("e2"), token) },
  answer: { chat: "asking", send: (s, id, token) => s.post(id, answering("q2"), token) },
  stream: { chat: "going", send: (s, id, token) => s.get(id, "stream", token) },
  messages: { chat: "ended", send: (s, id, token) => s.get(id, "messages", token) },
};

describe("chatHandler with authorize: every verb × own, another tenant's, no principal", () => {
  it("another tenant gets what an unknown chat gets (a new message: refused), none gets 401; nothing runs, nothing is logged", async () => {
    const s = await served();
    for (const [verb, { chat, send }] of Object.entries(VERBS)) {
      const before = (await s.store.read(chat)).length;
      const calls = s.calls();
      const other = await send(s, chat, CALLERS.other);
      const otherText = await other.text();
      if (verb === "continue") {
        expect([verb, other.status, otherText]).toEqual([
          verb,
          409,
          "chat 'ended' cannot be started: the id is taken; start the conversation under another",
        ]);
      } else {
        const unknown = await send(s, "nobody", CALLERS.other);
        const unknownText = (await unknown.text()).replaceAll("nobody", chat);
        expect([verb, other.status, otherText]).toEqual([verb, unknown.status, unknownText]);
        // Nothing of the chat is shown: no turn to follow, no messages.
        if (verb === "messages") expect(otherText).toBe("[]");
        else expect(other.status).not.toBe(200);
      }
      const none = await send(s, chat, CALLERS.none);
      expect([verb, none.status, await none.text()]).toEqual([verb, 401, "sign in first"]);
      expect((await s.store.read(chat)).length).toBe(before);
      expect(s.calls()).toBe(calls);
    }
    expect(await s.store.read("nobody")).toEqual([]);
  });

  it("the owner's own requests go through on every verb", async () => {
    const s = await served();
    const following = await VERBS.stream?.send(s, "going", CALLERS.own);
    expect(following?.status).toBe(200);
    s.release();
    expect(await following?.text()).toContain("slow done");
    expect(await s.going.text()).toContain("slow done");
    for (const verb of ["continue", "resume", "answer", "messages"]) {
      const { chat, send } = VERBS[verb] as (typeof VERBS)[string];
      const response = await send(s, chat, CALLERS.own);
      expect([verb, response.status]).toEqual([verb, 200]);
      await response.text();
    }
    expect((await s.store.read("waits")).some((event) => event.type === "approval.decided")).toBe(true);
  });

  it("a store's runs are listed for their tenant only (runsFor): the others see none of them", async () => {
    const s = await served();
    s.release();
    await s.going.text();
    const mine = (await runsFor(s.store, { tenant: "acme" })).map((run) => run.runId).sort();
    expect(mine).toEqual(["asking", "ended", "going", "waits"]);
    expect(await runsFor(s.store, { tenant: "globex" })).toEqual([]);
    expect(await runsFor(s.store, undefined)).toEqual([]);
  });
});
