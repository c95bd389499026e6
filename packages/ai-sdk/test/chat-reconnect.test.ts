import { chatHandler } from "@agentloop/ai-sdk";
import { MemoryEventStore } from "@agentloop/core";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { hangGuard } from "../../../hang-guard.js";
import { listen, NodeChat } from "./chat-server.js";
import { gatedRegistry, until } from "./gate.js";
import { partsOf, reply } from "./read.js";

const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: (request: Request) => Promise<Response>): Promise<string> {
  const server = await listen(handler);
  servers.push(server);
  return server.url;
}

const user = (text: string) => ({ id: `u-${text}`, role: "user", parts: [{ type: "text", text }] });

describe("a client that leaves and comes back", () => {
  it("a client that disconnects mid-stream stops reading, not the run: the run ends in the store", async () => {
    const store = new MemoryEventStore();
    const gate = gatedRegistry();
    const model = scriptedModel([asks(toolCall("g1", "slow_lookup")), final("Found it.")]);
    const url = await serve(chatHandler({ model, registry: gate.registry, store }));
    const leaving = new AbortController();
    const response = await fetch(url, {
      method: "POST",
      body: JSON.stringify({ id: "c", messages: [user("look")] }),
      signal: leaving.signal,
    });
    await until(gate.entered);
    leaving.abort();
    await response.text().catch(() => "");
    gate.open();
    await until(async () => (await store.read("c")).at(-1)?.type === "run.finished");
    expect(gate.calls()).toBe(1);
  });

  it("a GET of <api>/<id>/stream replays the turn in progress from its start and follows it to the end, as Chat.resumeStream reads it", async () => {
    const gate = gatedRegistry();
    const model = scriptedModel([
      { content: "Looking it up.", toolCalls: [toolCall("g1", "slow_lookup")] },
      final("Found it."),
    ]);
    const url = await serve(chatHandler({ model, registry: gate.registry, store: new MemoryEventStore() }));
    const first = new NodeChat("r", url);
    const sending = first.sendMessage({ text: "look" });
    await until(gate.entered);
    // A reload: a new page for the same chat, holding only the question.
    const reloaded = new NodeChat("r", url);
    reloaded.messages = [{ id: "u", role: "user", parts: [{ type: "text", text: "look" }] }];
    const resuming = reloaded.resumeStream();
    await until(() => reloaded.messages.length === 2);
    expect(partsOf(reply(reloaded.messages))[0]).toMatchObject({ type: "text", text: "Looking it up." });
    gate.open();
    await Promise.all([sending, resuming]);
    expect(reloaded.messages).toHaveLength(2);
    expect(partsOf(reply(reloaded.messages))).toMatchObject([
      { type: "text", text: "Looking it up." },
      { type: "tool-slow_lookup", state: "output-available", output: "found" },
      { type: "text", text: "Found it." },
    ]);
    expect(reply(reloaded.messages).id).toBe(reply(first.messages).id);
  });

  it("resuming while the page still holds the previous turn's answer does not show that answer twice", async () => {
    const gate = gatedRegistry();
    const model = scriptedModel([final("First answer."), asks(toolCall("g1", "slow_lookup")), final("Second answer.")]);
    const url = await serve(chatHandler({ model, registry: gate.registry, store: new MemoryEventStore() }));
    const chat = new NodeChat("two-turns", url);
    await chat.sendMessage({ text: "one" });
    const sending = chat.sendMessage({ text: "two" });
    await until(gate.entered);
    const reloaded = new NodeChat("two-turns", url);
    reloaded.messages = structuredClone(chat.messages.slice(0, 3));
    const resuming = reloaded.resumeStream();
    await until(() => reloaded.messages.length === 4);
    gate.open();
    await Promise.all([sending, resuming]);
    const texts = reloaded.messages.map((message) =>
      message.parts
        .filter((part) => part.type === "text")
        .map((part) => part.text)
        .join(""),
    );
    expect(texts).toEqual(["one", "First answer.", "two", "Second answer."]);
  });

  it("a GET for a chat with no turn going is 204, which the AI SDK's chat takes as nothing to resume", async () => {
    const url = await serve(
      chatHandler({
        model: scriptedModel([final("Hi.")]),
        registry: gatedRegistry().registry,
        store: new MemoryEventStore(),
      }),
    );
    expect((await fetch(`${url}/idle/stream`)).status).toBe(204);
    const chat = new NodeChat("idle", url);
    await chat.resumeStream();
    expect(chat.status).toBe("ready");
    expect(chat.messages).toEqual([]);
  });

  it("a reconnect after an approval replays the whole assistant message: the approved call and the rest", async () => {
    const gate = gatedRegistry();
    gate.registry.register("send", "Send.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
    const model = scriptedModel([asks(toolCall("s1", "send")), asks(toolCall("g1", "slow_lookup")), final("Done.")]);
    const url = await serve(chatHandler({ model, registry: gate.registry, store: new MemoryEventStore() }));
    const chat = new NodeChat("ap", url, { autoSend: true });
    await chat.sendMessage({ text: "send" });
    await chat.addToolApprovalResponse({ id: "s1", approved: true });
    await until(gate.entered);
    const reloaded = new NodeChat("ap", url);
    reloaded.messages = [{ id: "u", role: "user", parts: [{ type: "text", text: "send" }] }];
    const resuming = reloaded.resumeStream();
    await until(() => reloaded.messages.length === 2);
    gate.open();
    await resuming;
    await until(() => chat.status === "ready");
    expect(partsOf(reply(reloaded.messages))).toMatchObject([
      { type: "tool-send", state: "output-available", approval: { approved: true }, output: "sent" },
      { type: "tool-slow_lookup", state: "output-available" },
      { type: "text", text: "Done." },
    ]);
  });

  it("100 chats at once on one handler each get their own answer, and each run is in the store", {
    timeout: hangGuard(120_000),
  }, async () => {
    const store = new MemoryEventStore();
    const replies = Array.from({ length: 100 }, (_, i) => final(`Answer ${i}.`));
    // One model for all: each call answers with the number in the question it is shown.
    const model = async (messages: readonly { role: string; content: unknown }[]) => {
      const asked = String(messages.at(-1)?.content);
      return replies[Number(asked.replace("question ", ""))] ?? final("");
    };
    const url = await serve(chatHandler({ model, registry: gatedRegistry().registry, store }));
    const chats = Array.from({ length: 100 }, (_, i) => new NodeChat(`many-${i}`, url));
    await Promise.all(chats.map((chat, i) => chat.sendMessage({ text: `question ${i}` })));
    chats.forEach((chat, i) => {
      expect(chat.status).toBe("ready");
      expect(partsOf(reply(chat.messages))).toMatchObject([{ type: "text", text: `Answer ${i}.` }]);
    });
    expect((await store.list()).filter((run) => run.outcome !== null)).toHaveLength(100);
  });
});
