import { chatHandler, loadChat } from "@agentloop/ai-sdk";
import { MemoryEventStore, ToolRegistry } from "@agentloop/core";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";
import type { UIMessage } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { listen, NodeChat } from "./chat-server.js";
import { gatedRegistry, until } from "./gate.js";

const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: (request: Request) => Promise<Response>): Promise<string> {
  const server = await listen(handler);
  servers.push(server);
  return server.url;
}

function emailRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    "send_email",
    "Send an email.",
    { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    ({ to }: { to: string }) => `sent to ${to}`,
    { needsApproval: true },
  );
  return registry;
}

/** What a page shows of messages: roles and parts, without the ids a page makes up itself. */
function shown(messages: readonly UIMessage[]): unknown[] {
  return messages.map((message) => ({ role: message.role, parts: message.parts }));
}

describe("loadChat: a chat's UIMessage[] from the store's log only", () => {
  it("gives back the messages the AI SDK's chat held after each turn: text, an approved tool call, a refused one", async () => {
    const store = new MemoryEventStore();
    const model = scriptedModel([
      asks(toolCall("e1", "send_email", { to: "ana" })),
      final("Sent to ana."),
      asks(toolCall("e2", "send_email", { to: "bo" })),
      final("I did not email bo."),
    ]);
    const url = await serve(chatHandler({ model, registry: emailRegistry(), store }));
    const chat = new NodeChat("load-a", url, { autoSend: true });
    await chat.sendMessage({ text: "Mail Ana" });
    await chat.addToolApprovalResponse({ id: "e1", approved: true });
    await until(
      () => chat.status === "ready" && chat.messages.at(-1)?.parts.some((part) => part.type === "text") === true,
    );
    await chat.sendMessage({ text: "Mail Bo" });
    await chat.addToolApprovalResponse({ id: "e2", approved: false, reason: "not now" });
    await until(() => chat.status === "ready" && (chat.messages.at(-1)?.parts.length ?? 0) > 3);

    const loaded = await loadChat({ store, chatId: "load-a" });
    expect(chat.messages).toHaveLength(4);
    expect(shown(loaded)).toEqual(shown(chat.messages));
    expect(loaded.map((message) => message.id)).toEqual([
      "load-a-0-user",
      "load-a-0-assistant",
      "load-a-1-user",
      "load-a-1-assistant",
    ]);
  });

  it("a turn that waits for a decision ends in approval-requested; deciding it on the loaded message continues that message", async () => {
    const store = new MemoryEventStore();
    const model = scriptedModel([asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent.")]);
    const url = await serve(chatHandler({ model, registry: emailRegistry(), store }));
    await new NodeChat("load-b", url).sendMessage({ text: "Mail Ana" });

    const loaded = await loadChat({ store, chatId: "load-b" });
    expect(loaded.at(-1)?.parts.at(-1)).toMatchObject({
      type: "tool-send_email",
      state: "approval-requested",
      approval: { id: "e1" },
    });
    // A page reloaded here: its chat starts from the loaded messages, and the approval goes on from them.
    const reloaded = new NodeChat("load-b", url, { autoSend: true, messages: loaded });
    await reloaded.addToolApprovalResponse({ id: "e1", approved: true });
    await until(
      () => reloaded.status === "ready" && reloaded.messages.at(-1)?.parts.some((p) => p.type === "text") === true,
    );
    expect(reloaded.messages).toHaveLength(2);
    expect(reloaded.messages[1]?.id).toBe("load-b-0-assistant");
    expect(shown(await loadChat({ store, chatId: "load-b" }))).toEqual(shown(reloaded.messages));
  });

  it("leaves out the assistant message of a turn still going (the page resumes it), and knows no unknown chat", async () => {
    const store = new MemoryEventStore();
    const gate = gatedRegistry();
    const model = scriptedModel([asks(toolCall("s1", "slow_lookup", {})), final("Found it.")]);
    const handler = chatHandler({ model, registry: gate.registry, store });
    const url = await serve(handler);
    const chat = new NodeChat("load-c", url);
    const sending = chat.sendMessage({ text: "Look it up" });
    await until(gate.entered);
    expect(shown(await loadChat({ store, chatId: "load-c" }))).toEqual([
      { role: "user", parts: [{ type: "text", text: "Look it up" }] },
    ]);
    gate.open();
    await sending;
    expect(await loadChat({ store, chatId: "nobody" })).toEqual([]);
  });

  it("chatHandler answers GET <api>/<chat id>/messages with the loaded messages as JSON", async () => {
    const store = new MemoryEventStore();
    const url = await serve(
      chatHandler({ model: scriptedModel([final("Hello.")]), registry: new ToolRegistry(), store }),
    );
    await new NodeChat("load-d", url).sendMessage({ text: "Hi" });
    const response = await fetch(`${url}/load-d/messages`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toEqual(await loadChat({ store, chatId: "load-d" }));
    expect(await (await fetch(`${url}/nobody/messages`)).json()).toEqual([]);
    expect((await fetch(`${url}/load-d/other`)).status).toBe(404);
  });
});
