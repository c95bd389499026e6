import { chatHandler, loadChat } from "@agentloop/ai-sdk";
import { MemoryEventStore } from "@agentloop/core";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { listen, NodeChat } from "./chat-server.js";
import { gatedRegistry, until } from "./gate.js";
import { partsOf } from "./read.js";

const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * A page loaded from the log while the approved turn runs (its gate shut) resumes the stream; once
 * `open` lets the turn end, the page that approved is ready and the resumed page holds the whole
 * message, with no error on the way.
 */
async function expectWholeMessageResumed(
  store: MemoryEventStore,
  chatId: string,
  url: string,
  open: () => void,
  approving: NodeChat,
): Promise<void> {
  const errors: Error[] = [];
  const resumed = new NodeChat(chatId, url, {
    messages: await loadChat({ store, chatId }),
    onError: (error) => errors.push(error),
  });
  const resuming = resumed.resumeStream();
  await until(() => resumed.messages.length === 2 || resumed.status === "error");
  open();
  await resuming;
  await until(() => approving.status === "ready");
  expect(errors.map((e) => e.message)).toEqual([]);
  expect(resumed.status).toBe("ready");
  expect(resumed.messages).toHaveLength(2);
  expect(partsOf(resumed.messages[1] ?? { id: "none", role: "assistant", parts: [] })).toMatchObject([
    { type: "tool-send", state: "output-available", output: "sent" },
    { type: "tool-slow_lookup", state: "output-available" },
    { type: "text", text: "Done." },
  ]);
}

describe("resume after an approval, on a page that did not stream the pause", () => {
  // A page reloaded before it approved; a handler restarted between the pause and the approval.
  it("a page reloaded while the turn after the approval runs replays the whole message (useChat resume)", async () => {
    const store = new MemoryEventStore();
    const gate = gatedRegistry();
    gate.registry.register("send", "Send.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
    const model = scriptedModel([asks(toolCall("s1", "send")), asks(toolCall("g1", "slow_lookup")), final("Done.")]);
    const server = await listen(chatHandler({ model, registry: gate.registry, store }));
    servers.push(server);
    const { url } = server;

    // Tab 1 asks; the run pauses on the approval.
    const first = new NodeChat("ld", url);
    await first.sendMessage({ text: "send" });

    // Reload while it waits: the page starts from loadChat, and approves there.
    const loaded = await loadChat({ store, chatId: "ld" });
    const page = new NodeChat("ld", url, { autoSend: true, messages: loaded });
    await page.addToolApprovalResponse({ id: "s1", approved: true });
    await until(gate.entered);

    // Reload again while the approved turn runs: loadChat leaves the going message out, resume replays it.
    await expectWholeMessageResumed(store, "ld", url, gate.open, page);
  });
});

describe("resume after a restart between the pause and the approval", () => {
  it("a page that resumes the approved turn gets the whole message, though the server that paused it is gone", async () => {
    const store = new MemoryEventStore();
    const gate = gatedRegistry();
    gate.registry.register("send", "Send.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
    const model = () =>
      scriptedModel([asks(toolCall("s1", "send")), asks(toolCall("g1", "slow_lookup")), final("Done.")]);
    const before = await listen(chatHandler({ model: model(), registry: gate.registry, store }));
    const chat = new NodeChat("rs", before.url, { autoSend: true });
    await chat.sendMessage({ text: "send" });
    await before.close();

    // The server restarts (same store); the page approves against the new one.
    const after = await listen(
      chatHandler({
        model: scriptedModel([asks(toolCall("g1", "slow_lookup")), final("Done.")]),
        registry: gate.registry,
        store,
      }),
    );
    servers.push(after);
    const page = new NodeChat("rs", after.url, { autoSend: true, messages: chat.messages });
    await page.addToolApprovalResponse({ id: "s1", approved: true });
    await until(gate.entered);

    // A reload while the approved turn runs: resume replays it.
    await expectWholeMessageResumed(store, "rs", after.url, gate.open, page);
  });
});
