import { chatHandler } from "@agentloop/ai-sdk";
import { agentTool, askUserTool, MemoryEventStore, ToolRegistry } from "@agentloop/core";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";
import { lastAssistantMessageIsCompleteWithToolCalls, type UIMessage } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { listen, NodeChat } from "./chat-server.js";
import { until } from "./gate.js";
import { partsOf, reply } from "./read.js";

const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const TRIP = {
  type: "object" as const,
  properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } },
  required: ["city", "days"],
  additionalProperties: false,
};

/** A chat whose model asks where to, then answers with what it was told. */
async function tripChat() {
  const store = new MemoryEventStore();
  const registry = new ToolRegistry([askUserTool({ answer: TRIP })]);
  const model = scriptedModel([
    asks(toolCall("q1", "ask_user", { question: "Where to, and for how long?" })),
    final("Packing for 3 days in Lima."),
  ]);
  const server = await listen(chatHandler({ model, registry, store }));
  servers.push(server);
  return { store, model, url: server.url };
}

/** The body `DefaultChatTransport` posts once the page answered question `id` with `output`. */
function answering(chatId: string, messages: readonly UIMessage[], id: string, output: unknown) {
  const answered = messages.map((message) => ({
    ...message,
    parts: message.parts.map((part) =>
      "toolCallId" in part && part.toolCallId === id ? { ...part, state: "output-available", output } : part,
    ),
  }));
  return JSON.stringify({ id: chatId, messages: answered, trigger: "submit-message", messageId: answered.at(-1)?.id });
}

const post = (url: string, body: string) => fetch(url, { method: "POST", body });
const answersLogged = async (store: MemoryEventStore, chatId: string) =>
  (await store.read(chatId)).filter((event) => event.type === "question.answered");

describe("a question of askUserTool on the UI stream, answered with addToolOutput", () => {
  it("shows as a tool part in input-available; addToolOutput resumes the run, whose log and model take the answer as the tool's result", async () => {
    const { store, model, url } = await tripChat();
    const chat = new NodeChat("trip", url, { sendWhen: lastAssistantMessageIsCompleteWithToolCalls });
    await chat.sendMessage({ text: "Plan my trip." });
    expect(chat.status).toBe("ready");
    expect(chat.error).toBeUndefined();
    expect(partsOf(reply(chat.messages))).toEqual([
      expect.objectContaining({
        type: "tool-ask_user",
        toolCallId: "q1",
        state: "input-available",
        input: { question: "Where to, and for how long?" },
      }),
    ]);
    expect(reply(chat.messages).metadata).toMatchObject({ status: "awaiting_input" });

    await chat.addToolOutput({ tool: "ask_user", toolCallId: "q1", output: { city: "Lima", days: 3 } });
    await until(() => chat.status === "ready" && reply(chat.messages).parts.some((part) => part.type === "text"));
    expect(chat.messages).toHaveLength(2);
    expect(partsOf(reply(chat.messages))).toMatchObject([
      { type: "tool-ask_user", state: "output-available", output: { city: "Lima", days: 3 } },
      { type: "text", text: "Packing for 3 days in Lima." },
    ]);
    expect(await answersLogged(store, "trip")).toMatchObject([
      { type: "question.answered", callId: "q1", answer: { city: "Lima", days: 3 } },
    ]);
    expect((await store.read("trip")).at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "done" } });
    expect(JSON.stringify(model.seen.at(-1))).toContain('{\\"city\\":\\"Lima\\",\\"days\\":3}');
  });

  it("an answer that does not fit the question's shape is refused in one line, nothing logged, and the question still waits", async () => {
    const { store, url } = await tripChat();
    const chat = new NodeChat("bad", url);
    await chat.sendMessage({ text: "Plan my trip." });
    const before = (await store.read("bad")).length;
    const response = await post(url, answering("bad", chat.messages, "q1", { city: "Lima" }));
    expect(response.status).toBe(409);
    const text = await response.text();
    expect(text).toMatch(/the answer to 'q1' does not fit/);
    expect(text).not.toContain("\n");
    expect(await store.read("bad")).toHaveLength(before);
    const good = await post(url, answering("bad", chat.messages, "q1", { city: "Lima", days: 3 }));
    expect(good.status).toBe(200);
    await good.text();
    expect(await answersLogged(store, "bad")).toHaveLength(1);
  });

  it("an answer for a question that does not wait is refused in one line: already answered, or an id the run never asked", async () => {
    const { store, url } = await tripChat();
    const chat = new NodeChat("twice", url, { sendWhen: lastAssistantMessageIsCompleteWithToolCalls });
    await chat.sendMessage({ text: "Plan my trip." });
    const paused = structuredClone(chat.messages);
    // A part the run never streamed, answered: nothing waits under its id.
    const forged = structuredClone(paused);
    forged[1]?.parts.push({
      type: "tool-ask_user",
      toolCallId: "q9",
      state: "output-available",
      input: { question: "Where?" },
      output: { city: "Oslo", days: 1 },
    });
    const stranger = await post(url, answering("twice", forged, "q9", { city: "Oslo", days: 1 }));
    expect(stranger.status).toBe(409);
    expect(await stranger.text()).toBe("chat 'twice' waits for answers to 'q1', and the message answers none of them");
    await chat.addToolOutput({ tool: "ask_user", toolCallId: "q1", output: { city: "Lima", days: 3 } });
    await until(() => chat.status === "ready" && reply(chat.messages).parts.some((part) => part.type === "text"));
    const again = await post(url, answering("twice", paused, "q1", { city: "Oslo", days: 1 }));
    expect(again.status).toBe(409);
    expect(await again.text()).toBe(
      "chat 'twice' waits for no decision or answer: its turn has ended; send a new message",
    );
    expect(await answersLogged(store, "twice")).toMatchObject([{ answer: { city: "Lima", days: 3 } }]);
  });

  it("two answers posted at once: one is taken, the other refused, and the log holds one answer", async () => {
    const { store, url } = await tripChat();
    const chat = new NodeChat("race", url);
    await chat.sendMessage({ text: "Plan my trip." });
    const [a, b] = await Promise.all([
      post(url, answering("race", chat.messages, "q1", { city: "Lima", days: 3 })),
      post(url, answering("race", chat.messages, "q1", { city: "Oslo", days: 1 })),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    await Promise.all([a.text(), b.text()]);
    await until(async () => (await store.read("race")).at(-1)?.type === "run.finished");
    expect(await answersLogged(store, "race")).toHaveLength(1);
  });

  it("a child agent's question shows under its chained id and is answered by it", async () => {
    const store = new MemoryEventStore();
    const child = scriptedModel([
      asks(toolCall("q1", "ask_user", { question: "Which inbox?" })),
      final("Found it in work."),
    ]);
    const registry = new ToolRegistry([
      agentTool({ name: "research", description: "R.", model: child, registry: new ToolRegistry([askUserTool()]) }),
    ]);
    const model = scriptedModel([asks(toolCall("r1", "research", { task: "find the mail" })), final("Found.")]);
    const server = await listen(chatHandler({ model, registry, store }));
    servers.push(server);
    const chat = new NodeChat("tree", server.url);
    await chat.sendMessage({ text: "Find the mail." });
    expect(partsOf(reply(chat.messages))).toContainEqual(
      expect.objectContaining({ type: "tool-ask_user", toolCallId: "r1/q1", state: "input-available" }),
    );
    await chat.addToolOutput({ tool: "ask_user", toolCallId: "r1/q1", output: "work" });
    // The agent tool's own part waits too, so lastAssistantMessageIsCompleteWithToolCalls does not
    // hold: the page posts the answer itself.
    await chat.sendMessage();
    await until(() => chat.status === "ready" && reply(chat.messages).parts.some((part) => part.type === "text"));
    expect(partsOf(reply(chat.messages)).at(-1)).toMatchObject({ type: "text", text: "Found." });
    expect((await store.read("tree.r1")).find((event) => event.type === "question.answered")).toMatchObject({
      answer: "work",
    });
  });

  it("a page reloaded while the question waits shows it again from the store, and answering there resumes the run", async () => {
    const { store, url } = await tripChat();
    const first = new NodeChat("reload", url);
    await first.sendMessage({ text: "Plan my trip." });
    // The reload: the page starts from GET <api>/<chat id>/messages, as the chat page does.
    const loaded = (await (await fetch(`${url}/reload/messages`)).json()) as UIMessage[];
    expect(loaded.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(partsOf(reply(loaded))).toEqual([
      expect.objectContaining({
        type: "tool-ask_user",
        toolCallId: "q1",
        state: "input-available",
        input: { question: "Where to, and for how long?" },
      }),
    ]);
    const reloaded = new NodeChat("reload", url, {
      messages: loaded,
      sendWhen: lastAssistantMessageIsCompleteWithToolCalls,
    });
    await reloaded.addToolOutput({ tool: "ask_user", toolCallId: "q1", output: { city: "Lima", days: 3 } });
    await until(
      () => reloaded.status === "ready" && reply(reloaded.messages).parts.some((part) => part.type === "text"),
    );
    expect(partsOf(reply(reloaded.messages))).toMatchObject([
      { type: "tool-ask_user", state: "output-available", output: { city: "Lima", days: 3 } },
      { type: "text", text: "Packing for 3 days in Lima." },
    ]);
    // Loaded again after the turn: the answer is the question's output.
    const after = (await (await fetch(`${url}/reload/messages`)).json()) as UIMessage[];
    expect(partsOf(reply(after))).toMatchObject([
      { type: "tool-ask_user", state: "output-available", output: { city: "Lima", days: 3 } },
      { type: "text", text: "Packing for 3 days in Lima." },
    ]);
    expect(await answersLogged(store, "reload")).toHaveLength(1);
  });
});
