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

describe("resume after an approval given on a loaded page", () => {
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
    const errors: Error[] = [];
    const resumed = new NodeChat("ld", url, {
      messages: await loadChat({ store, chatId: "ld" }),
      onError: (error) => errors.push(error),
    });
    const resuming = resumed.resumeStream();
    await until(() => resumed.messages.length === 2 || resumed.status === "error");
    gate.open();
    await resuming;
    await until(() => page.status === "ready");
    expect(errors.map((e) => e.message)).toEqual([]);
    expect(resumed.status).toBe("ready");
    expect(resumed.messages).toHaveLength(2);
    expect(partsOf(resumed.messages[1] ?? { id: "none", role: "assistant", parts: [] })).toMatchObject([
      { type: "tool-send", state: "output-available", output: "sent" },
      { type: "tool-slow_lookup", state: "output-available" },
      { type: "text", text: "Done." },
    ]);
  });
});
