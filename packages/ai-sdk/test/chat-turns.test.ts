import { chatHandler } from "@agentloop/ai-sdk";
import { MemoryEventStore, ToolRegistry } from "@agentloop/core";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { listen, NodeChat } from "./chat-server.js";
import { until } from "./gate.js";

const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: (request: Request) => Promise<Response>): Promise<string> {
  const server = await listen(handler);
  servers.push(server);
  return server.url;
}

const post = (url: string, body: unknown): Promise<Response> =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const user = (text: string) => ({ id: `u-${text}`, role: "user", parts: [{ type: "text", text }] });
const approving = (id: string) => ({
  id: "a1",
  role: "assistant",
  parts: [
    { type: "tool-send", toolCallId: id, state: "approval-responded", input: {}, approval: { id, approved: true } },
  ],
});

/** `send` waits for approval and counts its runs. */
function approvalRegistry(): { registry: ToolRegistry; runs: () => number } {
  let runs = 0;
  const registry = new ToolRegistry();
  registry.register(
    "send",
    "Send.",
    { type: "object", properties: {} },
    () => {
      runs++;
      return "sent";
    },
    { needsApproval: true },
  );
  return { registry, runs: () => runs };
}

describe("a stale approval (a double click, a second tab)", () => {
  it("posted again after the chat finished is 409 at once, runs nothing, and the chat takes its next message", async () => {
    const store = new MemoryEventStore();
    const { registry, runs } = approvalRegistry();
    const model = scriptedModel([asks(toolCall("s1", "send")), final("Sent."), final("Anything else?")]);
    const url = await serve(chatHandler({ model, registry, store }));
    await (await post(url, { id: "c", messages: [user("send")] })).text();
    const decided = await post(url, { id: "c", messages: [user("send"), approving("s1")] });
    expect(await decided.text()).toContain("Sent.");
    const logged = (await store.read("c")).length;

    const stale = await post(url, { id: "c", messages: [user("send"), approving("s1")] });
    expect(stale.status).toBe(409);
    expect(await stale.text()).toMatch(/^chat 'c' waits for no decision/);
    expect(runs()).toBe(1);
    expect((await store.read("c")).length).toBe(logged);

    // Still usable: no stream left hanging, the next message is a turn.
    expect((await fetch(`${url}/c/stream`)).status).toBe(204);
    const next = await post(url, { id: "c", messages: [user("send"), user("thanks")] });
    expect(next.status).toBe(200);
    expect(await next.text()).toContain('"status":"done"');
    expect((await store.read("c")).at(-1)).toMatchObject({
      type: "run.finished",
      outcome: { answer: "Anything else?" },
    });
  });

  it("from a page of the AI SDK's chat that approves again: the chat shows the refusal and goes on with the next message", async () => {
    const store = new MemoryEventStore();
    const { registry, runs } = approvalRegistry();
    const model = scriptedModel([asks(toolCall("s1", "send")), final("Sent."), final("Anything else?")]);
    const url = await serve(chatHandler({ model, registry, store }));
    const tab = new NodeChat("tabs", url, { autoSend: true });
    await tab.sendMessage({ text: "send" });
    // A second tab holds the same paused chat and approves it too, after the first.
    const other = new NodeChat("tabs", url, { autoSend: true, messages: tab.messages, onError: () => {} });
    await tab.addToolApprovalResponse({ id: "s1", approved: true });
    await until(() => tab.status === "ready" && JSON.stringify(tab.messages).includes("Sent."));
    await other.addToolApprovalResponse({ id: "s1", approved: true });
    await until(() => other.status === "error");
    expect(other.error?.message).toMatch(/waits for no decision/);
    expect(runs()).toBe(1);
    await tab.sendMessage({ text: "thanks" });
    expect(tab.status).toBe("ready");
    expect(JSON.stringify(tab.messages.at(-1))).toContain("Anything else?");
  });
});
