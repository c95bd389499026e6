import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { madeSchemas } from "./schemas.js";
import { type TwoServers, twoServers } from "./serving.js";

// chatHandler on two server processes sharing one Postgres schema, behind a round-robin balancer,
// driven by the AI SDK's own Chat (what useChat wraps) with DefaultChatTransport. Build first.

const schemas = madeSchemas();
let servers: TwoServers;
beforeEach(async () => {
  servers = await twoServers("chat", schemas.make());
});
afterEach(() => servers.close());
afterAll(() => schemas.drop());

class ArrayState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage): void => void this.messages.push(message);
  popMessage = (): void => void this.messages.pop();
  replaceMessage = (index: number, message: UIMessage): void => {
    this.messages[index] = message;
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The AI SDK's chat in Node against the balancer; `finished()` resolves at the end of its next answer. */
class Page extends AbstractChat<UIMessage> {
  readonly #ends: (() => void)[] = [];
  constructor(id: string, api: string, messages: UIMessage[] = []) {
    const state = new ArrayState();
    state.messages = structuredClone(messages);
    let ends: (() => void)[] = [];
    super({
      id,
      state,
      transport: new DefaultChatTransport({ api }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      onFinish: () => {
        for (const end of ends.splice(0)) end();
      },
    });
    ends = this.#ends;
  }
  finished(): Promise<void> {
    return new Promise((resolve) => this.#ends.push(resolve));
  }
}

const texts = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : []));

describe("chatHandler on two processes sharing a Postgres store, behind a round-robin balancer", () => {
  it("a chat whose turns land on different processes continues: the second process answers from the whole conversation", async () => {
    const page = new Page("chat-1", servers.url("/api/chat"));
    await servers.steer(servers.a);
    await page.sendMessage({ text: "hello" });
    await page.sendMessage({ text: "again" });
    expect(servers.takers("/api/chat", "POST")).toEqual(["A", "B"]);
    expect(texts(page.messages.at(1))).toEqual(["A heard: hello"]);
    expect(texts(page.messages.at(3))).toEqual(["B heard: hello | again"]);
  });

  it("an approval given to the other process resumes the run there: the tool runs once, on that process", async () => {
    const page = new Page("chat-2", servers.url("/api/chat"));
    await servers.steer(servers.a);
    await page.sendMessage({ text: "email ana" });
    const waiting = page.messages.at(-1)?.parts.find((part) => part.type === "tool-send_email");
    expect(waiting).toMatchObject({ state: "approval-requested", toolCallId: "e1" });
    await servers.steer(servers.b);
    const finished = page.finished();
    await page.addToolApprovalResponse({ id: "e1", approved: true });
    await finished;
    expect(servers.takers("/api/chat", "POST")).toEqual(["A", "B"]);
    expect(texts(page.messages.at(-1))).toEqual(['B finished: {"sent":"ana","by":"B"}']);
    expect(servers.b.told.filter((told) => told.sent !== undefined)).toEqual([{ sent: "ana" }]);
    expect(servers.a.told.filter((told) => told.sent !== undefined)).toEqual([]);
  });

  it("a reload on the other process follows the turn in progress from the log to its end; a message meanwhile is refused there, and nothing runs twice", async () => {
    const page = new Page("chat-3", servers.url("/api/chat"));
    await servers.steer(servers.a);
    const sending = page.sendMessage({ text: "slow k3" });
    await servers.a.when((told) => told.started === "k3", true);
    // A reload: a new page for the chat loads its messages, then resumes the stream of the turn in progress.
    await servers.steer(servers.b);
    const loaded = (await (await fetch(servers.url("/api/chat/chat-3/messages"))).json()) as UIMessage[];
    expect(loaded.map((message) => message.role)).toEqual(["user"]);
    const reloaded = new Page("chat-3", servers.url("/api/chat"), loaded);
    await servers.steer(servers.b);
    const watching = servers.b.when((told) => told.watching === true);
    const resuming = reloaded.resumeStream();
    await Promise.race([
      watching,
      resuming.then(() => {
        throw new Error("the reload found no turn to follow");
      }),
    ]);
    // B follows a turn A drives: a new message to B now is refused, A's turn is not taken over.
    await servers.steer(servers.b);
    const refused = await fetch(servers.url("/api/chat"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: "chat-3",
        messages: [{ id: "x", role: "user", parts: [{ type: "text", text: "hi" }] }],
      }),
    });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("still going in another process");
    servers.a.release("k3");
    await Promise.all([sending, resuming]);
    expect(servers.takers("/api/chat/chat-3/stream", "GET")).toEqual(["B"]);
    const followed = reloaded.messages.at(-1);
    expect(followed?.id).toBe("chat-3-0-assistant");
    expect(followed?.parts.filter((part) => part.type !== "step-start")).toMatchObject([
      { type: "tool-slow_task", state: "output-available", output: { done: "k3", by: "A" } },
      { type: "text", text: 'A finished: {"done":"k3","by":"A"}' },
    ]);
    expect(texts(page.messages.at(-1))).toEqual(texts(followed));
    expect([...servers.a.told, ...servers.b.told].filter((told) => told.started !== undefined)).toEqual([
      { started: "k3" },
    ]);
  });
});
