import { chatHandler } from "@agentloop/ai-sdk";
import {
  InMemoryMemoryStore,
  MemoryEventStore,
  type MemoryScope,
  memoryTools,
  type Principal,
  ToolRegistry,
} from "@agentloop/core";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { lastText, listen, NodeChat } from "./chat-server.js";

// A served agent with memory recalls before every turn of a conversation, the first and each
// message after it: the store is given again to every turn the server drives.

const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("a served chat with memory", () => {
  it("recalls before each turn and answers every message, not only the first", async () => {
    const scope: MemoryScope = { resource: "ana" };
    const memory = new InMemoryMemoryStore();
    await memory.put(scope, "city", "Ana lives in Pune");
    const searched: string[] = [];
    const search = memory.search.bind(memory);
    memory.search = (at, query, limit) => {
      searched.push(query);
      return search(at, query, limit);
    };
    const server = await listen(
      chatHandler({
        model: scriptedModel([final("Hello Ana."), final("Pune, as you said.")]),
        registry: new ToolRegistry(),
        store: new MemoryEventStore(),
        options: { memory: { store: memory, scope } },
      }),
    );
    servers.push(server);
    const errors: Error[] = [];
    const chat = new NodeChat("memory", server.url, { onError: (error) => errors.push(error) });
    await chat.sendMessage({ text: "Hi, I am Ana." });
    expect(errors).toEqual([]);
    expect(lastText(chat.messages)).toBe("Hello Ana.");
    await chat.sendMessage({ text: "Where do I live?" });
    expect(errors).toEqual([]);
    expect(chat.status).toBe("ready");
    expect(lastText(chat.messages)).toBe("Pune, as you said.");
    expect(searched).toEqual(["Hi, I am Ana.", "Where do I live?"]);
  });

  it("with authorize, each tenant's conversations recall and write their own memories only (memoryScope)", async () => {
    const memory = new InMemoryMemoryStore();
    const store = new MemoryEventStore();
    const authorize = (request: Request): Principal | Response => {
      const tenant = request.headers.get("x-tenant");
      return tenant === null ? new Response("who are you?", { status: 401 }) : { tenant };
    };
    const model = scriptedModel([
      asks(toolCall("w1", "remember", { key: "colour", value: "likes green" })),
      final("Noted."),
      asks(toolCall("q1", "recall", { query: "colour" })),
      final("I know nothing of that."),
    ]);
    const server = await listen(
      chatHandler({
        model,
        registry: new ToolRegistry().add(...memoryTools(memory)),
        store,
        authorize,
        options: { memory: { store: memory, scope: { resource: "unused" } } },
        memoryScope: (principal) => ({ resource: principal?.tenant ?? "nobody" }),
      }),
    );
    servers.push(server);
    const chatOf = (id: string, tenant: string) => new NodeChat(id, server.url, { headers: { "x-tenant": tenant } });
    const acme = chatOf("acme-chat", "acme");
    await acme.sendMessage({ text: "My colour is green." });
    expect(lastText(acme.messages)).toBe("Noted.");
    const globex = chatOf("globex-chat", "globex");
    await globex.sendMessage({ text: "What is my colour?" });
    expect(lastText(globex.messages)).toBe("I know nothing of that.");

    expect(await memory.get({ resource: "acme" }, "colour")).toBe("likes green");
    expect(await memory.search({ resource: "globex" }, "colour", 5)).toEqual([]);
    const globexLog = await store.read("globex-chat");
    expect(JSON.stringify(globexLog)).not.toContain("likes green");
    const recalled = globexLog.find((event) => event.type === "tool.finished" && event.callId === "q1");
    expect(recalled).toMatchObject({ content: '{"memories":[]}' });
    const acmeLog = await store.read("acme-chat");
    expect(acmeLog.find((event) => event.type === "memory.written")).toMatchObject({ scope: { resource: "acme" } });
    expect(acmeLog[0]).toMatchObject({ settings: { memory: { scope: { resource: "acme" } } } });
  });

  it("with authorize, a door refuses memory whose one scope every tenant would share, when it is made", () => {
    const memory = new InMemoryMemoryStore();
    const base = {
      model: scriptedModel([]),
      store: new MemoryEventStore(),
      authorize: (): Principal => ({ tenant: "acme" }),
    };
    const shared = { memory: { store: memory, scope: { resource: "everyone" } } };
    expect(() => chatHandler({ ...base, registry: new ToolRegistry(), options: shared })).toThrow(
      /^with authorize, options\.memory's one scope would be every tenant's: give memoryScope/,
    );
    expect(() =>
      chatHandler({ ...base, registry: new ToolRegistry().add(...memoryTools(memory, { resource: "everyone" })) }),
    ).toThrow(/^with authorize, the memory tool 'remember' reaches one scope for every tenant/);
    expect(() =>
      chatHandler({ ...base, registry: new ToolRegistry(), memoryScope: () => ({ resource: "x" }) }),
    ).toThrow(/^memoryScope needs options\.memory/);
    // Without authorize (one user), one scope is that user's.
    expect(() =>
      chatHandler({ ...base, authorize: undefined, registry: new ToolRegistry(), options: shared } as never),
    ).not.toThrow();
  });
});
