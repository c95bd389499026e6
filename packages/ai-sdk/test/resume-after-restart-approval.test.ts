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
    const errors: Error[] = [];
    const resumed = new NodeChat("rs", after.url, {
      messages: await loadChat({ store, chatId: "rs" }),
      onError: (error) => errors.push(error),
    });
    const resuming = resumed.resumeStream();
    await until(() => resumed.messages.length === 2 || resumed.status === "error");
    gate.open();
    await resuming;
    await until(() => page.status === "ready");
    expect(errors.map((e) => e.message)).toEqual([]);
    expect(partsOf(resumed.messages[1] ?? { id: "none", role: "assistant", parts: [] })).toMatchObject([
      { type: "tool-send", state: "output-available", output: "sent" },
      { type: "tool-slow_lookup", state: "output-available" },
      { type: "text", text: "Done." },
    ]);
  });
});
