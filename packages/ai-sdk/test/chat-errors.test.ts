import { chatHandler } from "@agentloop/ai-sdk";
import { MemoryEventStore, ToolRegistry } from "@agentloop/core";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";
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

const post = (url: string, body: unknown): Promise<Response> =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

const user = (text: string) => ({ id: `u-${text}`, role: "user", parts: [{ type: "text", text }] });
const approving = (...ids: string[]) => ({
  id: "a1",
  role: "assistant",
  parts: ids.map((id) => ({
    type: "tool-send",
    toolCallId: id,
    state: "approval-responded",
    input: {},
    approval: { id, approved: true },
  })),
});

function approvalRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register("send", "Send.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
  return registry;
}

describe("chatHandler refuses what it cannot take, with a status and a reason", () => {
  it("a body that is not JSON, or JSON that is not a chat request, is 400 with what is wrong", async () => {
    const url = await serve(
      chatHandler({ model: scriptedModel([]), registry: new ToolRegistry(), store: new MemoryEventStore() }),
    );
    const cases: [unknown, RegExp][] = [
      ["{not json", /not JSON/],
      [[1, 2], /JSON object/],
      [{ messages: [user("hi")] }, /`id`/],
      [{ id: "c", messages: [] }, /`messages`/],
      [{ id: "c", messages: [{ role: "user" }] }, /`parts`/],
      [{ id: "c", messages: [{ role: "user", parts: [{ type: "file" }] }] }, /part 0 \(file\) needs `url`/],
      [{ id: "c", messages: [{ role: "user", parts: [{ type: "text", text: "" }] }] }, /no text part and no file/],
      [{ id: "c", messages: [{ role: "assistant", parts: [{ type: "text", text: "x" }] }] }, /approval/],
      [{ id: "c", messages: [{ role: "system", parts: [] }] }, /user's or the assistant's/],
    ];
    for (const [body, reason] of cases) {
      const response = await post(url, body);
      expect(response.status).toBe(400);
      expect(await response.text()).toMatch(reason);
    }
  });

  it("a method other than POST and GET is 405; a GET that names no chat stream is 404", async () => {
    const url = await serve(
      chatHandler({ model: scriptedModel([]), registry: new ToolRegistry(), store: new MemoryEventStore() }),
    );
    expect((await fetch(url, { method: "PUT", body: "{}" })).status).toBe(405);
    expect((await fetch(`${url}/somewhere`)).status).toBe(404);
  });

  it("an approval for a chat the store does not hold is 404", async () => {
    const url = await serve(
      chatHandler({ model: scriptedModel([]), registry: approvalRegistry(), store: new MemoryEventStore() }),
    );
    const response = await post(url, { id: "nobody", messages: [user("x"), approving("s1")] });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("nobody");
  });

  it("an approval for a call that is not waiting, or for a call of another chat, is 409 and runs nothing", async () => {
    const store = new MemoryEventStore();
    const registry = approvalRegistry();
    const model = scriptedModel([asks(toolCall("s1", "send")), asks(toolCall("t1", "send"))]);
    const url = await serve(chatHandler({ model, registry, store }));
    await (await post(url, { id: "one", messages: [user("send one")] })).text();
    await (await post(url, { id: "two", messages: [user("send two")] })).text();
    const before = (await store.read("one")).length;
    const foreign = await post(url, { id: "one", messages: [user("x"), approving("t1")] });
    expect(foreign.status).toBe(409);
    expect(await foreign.text()).toMatch(/t1/);
    const unknown = await post(url, { id: "one", messages: [user("x"), approving("zz")] });
    expect(unknown.status).toBe(409);
    expect((await store.read("one")).length).toBe(before);
  });

  it("a new message for a chat that waits for a decision is 409, and the decision still goes through after", async () => {
    const store = new MemoryEventStore();
    const model = scriptedModel([asks(toolCall("s1", "send")), final("Sent.")]);
    const url = await serve(chatHandler({ model, registry: approvalRegistry(), store }));
    await (await post(url, { id: "c", messages: [user("send")] })).text();
    const interrupting = await post(url, { id: "c", messages: [user("send"), user("hurry")] });
    expect(interrupting.status).toBe(409);
    expect(await interrupting.text()).toMatch(/not finished/);
    const decided = await post(url, { id: "c", messages: [user("send"), approving("s1")] });
    expect(decided.status).toBe(200);
    expect(await decided.text()).toContain("Sent.");
  });

  it("a second turn while one of the same chat is going is 409; other chats are not held up", async () => {
    const gate = gatedRegistry();
    const model = scriptedModel([asks(toolCall("g1", "slow_lookup")), final("Found."), final("Other.")]);
    const url = await serve(chatHandler({ model, registry: gate.registry, store: new MemoryEventStore() }));
    const first = await post(url, { id: "busy", messages: [user("look")] });
    await until(gate.entered);
    const second = await post(url, { id: "busy", messages: [user("again")] });
    expect(second.status).toBe(409);
    expect(await second.text()).toMatch(/still going/);
    gate.open();
    expect(await first.text()).toContain("Found.");
    const other = await post(url, { id: "free", messages: [user("hi")] });
    expect(await other.text()).toContain("Other.");
  });

  it("the AI SDK's chat shows a refusal as its error with the server's reason", async () => {
    const url = await serve(
      chatHandler({ model: scriptedModel([]), registry: approvalRegistry(), store: new MemoryEventStore() }),
    );
    const errors: Error[] = [];
    const chat = new NodeChat("never", url, { onError: (error) => errors.push(error) });
    chat.messages = [
      { id: "u", role: "user", parts: [{ type: "text", text: "x" }] },
      {
        id: "a",
        role: "assistant",
        parts: [
          { type: "tool-send", toolCallId: "s1", state: "approval-requested", input: {}, approval: { id: "s1" } },
        ],
      },
    ];
    await chat.addToolApprovalResponse({ id: "s1", approved: true });
    await chat.sendMessage();
    expect(chat.status).toBe("error");
    expect(errors[0]?.message).toContain("no chat 'never'");
  });
});
