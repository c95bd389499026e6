import type { AgentStreamEvent, EventStore, Model, RunOptions, ToolRegistry } from "@agentloop/core";
import { continueAgent, EventLogError, resumeAgent, runAgent } from "@agentloop/core";
import type { AgentOptions } from "@agentloop/core/machine";
import type { UIMessageChunk } from "ai";
import { ChatRequestError, type ChatTurn, readChatTurn } from "./chat-request.js";
import { loadChat } from "./load-chat.js";
import { runEvents } from "./run-events.js";
import { toUIMessageStream } from "./to-ui-message-stream.js";
import { TurnFeed } from "./turn-feed.js";
import { uiMessageStreamResponse } from "./ui-message-stream-response.js";

/** What a served agent runs with: its model and tools, the store that keeps each conversation, and the settings of its runs. */
export interface ServeOptions {
  readonly model: Model;
  readonly registry: ToolRegistry;
  readonly store: EventStore;
  readonly options?: AgentOptions & Pick<RunOptions, "output" | "guardrails" | "toolTimeoutMs" | "maxResultChars">;
}

/**
 * A web-standard handler for `useChat` (`DefaultChatTransport`): a POST of `{ id, messages }` runs
 * the chat's next turn, the run's id in the store being the chat id — the first message starts the
 * run, a later one continues it (`continueAgent`), and an assistant message whose tool parts are in
 * `approval-responded` resumes the run paused on them with those decisions (`resumeAgent`). Only
 * the last message is read: the conversation is what the store holds. The answer is the UI message
 * stream over SSE. A GET of `<api>/<chat id>/stream` replays the assistant message of a turn still
 * going from its start and follows it (204 when none is); a client that leaves stops reading, not
 * the run, which goes on to its end in the store. A GET of `<api>/<chat id>/messages` answers the
 * chat's `UIMessage[]` as JSON, built from the log (`loadChat`): what a reloaded page starts from.
 *
 * Errors are plain-text responses before any stream starts: 400 for a body that is not a chat
 * request, 404 for decisions on a chat the store does not hold, 409 for a turn while another of
 * the same chat is going, decisions for calls that wait for none (another chat's, or already
 * decided) and a message for a chat that waits for a decision; 405 for other methods.
 */
export function chatHandler(serve: ServeOptions): (request: Request) => Promise<Response> {
  const going = new Map<string, TurnFeed>();
  const paused = new Map<string, TurnFeed>();
  return async (request) => {
    if (request.method === "GET") return get(serve.store, going, request);
    if (request.method !== "POST") {
      return text(405, "a chat takes POST (a turn), GET <api>/<chat id>/stream or GET <api>/<chat id>/messages");
    }
    let turn: ChatTurn;
    try {
      turn = readChatTurn(await request.json());
    } catch (error) {
      if (error instanceof SyntaxError) return text(400, "the body is not JSON");
      if (error instanceof ChatRequestError) return text(400, error.message);
      throw error;
    }
    if (going.has(turn.chatId))
      return text(409, `a turn of chat '${turn.chatId}' is still going: GET its stream to follow it`);
    const logged = await serve.store.read(turn.chatId);
    if (turn.kind === "decisions" && logged.length === 0) return text(404, `no chat '${turn.chatId}' is held`);
    const feed = turn.kind === "decisions" ? TurnFeed.continuing(paused.get(turn.chatId)) : new TurnFeed();
    // Claimed before the first await of the run, so that a second request for the chat is refused.
    going.set(turn.chatId, feed);
    const events = runEvents((onEvent) => start(serve, turn, logged.length > 0, onEvent));
    try {
      await events.started;
    } catch (error) {
      going.delete(turn.chatId);
      return refusal(error);
    }
    paused.delete(turn.chatId);
    const from = feed.length;
    const messageId = turn.kind === "decisions" ? turn.messageId : crypto.randomUUID();
    void pump(toUIMessageStream(events, { messageId }), feed, async () => {
      // Before the readers see the end: a client that posts again as soon as it has read the turn finds the chat free.
      const result = await events.result.catch(() => null);
      if (result?.status === "awaiting_approval") paused.set(turn.chatId, feed);
      going.delete(turn.chatId);
    });
    return uiMessageStreamResponse(feed.read(from));
  };
}

function start(
  serve: ServeOptions,
  turn: ChatTurn,
  held: boolean,
  onEvent: (event: AgentStreamEvent) => void,
): ReturnType<typeof runAgent> {
  const { model, registry, store } = serve;
  const options = serve.options ?? {};
  if (turn.kind === "decisions") {
    const { output, guardrails, toolTimeoutMs, maxResultChars } = options;
    return resumeAgent(turn.chatId, model, registry, {
      store,
      decisions: turn.decisions,
      onEvent,
      ...(output === undefined ? {} : { output }),
      ...(guardrails === undefined ? {} : { guardrails }),
      ...(toolTimeoutMs === undefined ? {} : { toolTimeoutMs }),
      ...(maxResultChars === undefined ? {} : { maxResultChars }),
    });
  }
  if (held) return continueAgent(turn.chatId, turn.text, model, registry, { ...options, store, onEvent });
  return runAgent(turn.text, model, registry, { ...options, store, runId: turn.chatId, onEvent });
}

async function pump(
  stream: ReadableStream<UIMessageChunk>,
  feed: TurnFeed,
  settle: () => Promise<void>,
): Promise<void> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      feed.push(value);
    }
  } finally {
    await settle();
    feed.end();
  }
}

async function get(store: EventStore, going: ReadonlyMap<string, TurnFeed>, request: Request): Promise<Response> {
  const match = /\/([^/]+)\/(stream|messages)$/.exec(new URL(request.url).pathname);
  if (match === null) return text(404, "a GET names a chat's stream or messages: <api>/<chat id>/stream|messages");
  const chatId = decodeURIComponent(match[1] as string);
  if (match[2] === "messages") return Response.json(await loadChat({ store, chatId }));
  const feed = going.get(chatId);
  if (feed === undefined) return new Response(null, { status: 204 });
  return uiMessageStreamResponse(feed.read(0));
}

function refusal(error: unknown): Response {
  if (error instanceof RangeError || error instanceof EventLogError) return text(409, error.message);
  if (error instanceof TypeError) return text(400, error.message);
  throw error;
}

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}
