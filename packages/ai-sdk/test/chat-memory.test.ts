import { chatHandler } from "@agentloop/ai-sdk";
import { InMemoryMemoryStore, MemoryEventStore, type MemoryScope, ToolRegistry } from "@agentloop/core";
import { final, scriptedModel } from "@agentloop/core/testing";
import type { UIMessage } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { listen, NodeChat } from "./chat-server.js";

// A served agent with memory recalls before every turn of a conversation, the first and each
// message after it: the store is given again to every turn the server drives.

const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const lastText = (messages: readonly UIMessage[]): string =>
  (messages.at(-1)?.parts ?? [])
    .filter((part) => part.type === "text")
    .map((part) => (part as { text: string }).text)
    .join("");

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
});
