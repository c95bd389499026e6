import type { Principal } from "@agentloop/core";
import {
  type ConversationState,
  clientError,
  conversationState,
  decideTurn,
  followLog,
  frontDoor,
  refusalOf,
  type ServeOptions,
  ServeRefusal,
  takeTurn,
  turnStartOf,
} from "@agentloop/core/serve";
import type { StoredEvent } from "@agentloop/core/store";
import type { UIMessageChunk } from "ai";
import { ChatRequestError, type ChatTurn, chatIdProblem, readChatTurn } from "./chat-request.js";
import { loadChat, pausedTurnChunks } from "./load-chat.js";
import { toUIMessageStream } from "./to-ui-message-stream.js";
import { TurnFeed } from "./turn-feed.js";
import { uiMessageStreamResponse } from "./ui-message-stream-response.js";

/**
 * A web-standard handler for `useChat` (`DefaultChatTransport`): a POST of `{ id, messages }` runs
 * the chat's next turn, the run's id in the store being the chat id — the first message starts the
 * run, a later one continues it (`continueAgent`), and an assistant message whose tool parts are in
 * `approval-responded` resumes the run paused on them with those decisions (`resumeAgent`). A
 * question of an ask-user tool is a tool part left in `input-available` (a client-side tool's
 * call); the message that comes back with its output (`addToolOutput`) resumes the run with that
 * answer (`answers`), checked against the question's shape. Only
 * the last message is read: the conversation is what the store holds. The answer is the UI message
 * stream over SSE. A GET of `<api>/<chat id>/stream` replays the assistant message of a turn still
 * going from its start and follows it (204 when none is) — a turn another process drives is read
 * from the store as it grows (`followLog`); a client that leaves stops reading, not the run, which
 * goes on to its end in the store. A GET of `<api>/<chat id>/messages` answers the
 * chat's `UIMessage[]` as JSON, built from the log (`loadChat`): what a reloaded page starts from.
 * What a turn does is decided by `@agentloop/core/serve`, as on every front door: every turn runs
 * with `options`, a continued or resumed one given again what its log cannot hold; a turn that was
 * cut off is finished from its log by the chat's next message, which then continues it in the same
 * stream (a `regenerate` finishes it alone); the front door's checks (`Host`, `Origin`,
 * `authorize`) come first, and another tenant's chat is answered as one the store does not hold.
 * A run that fails ends the stream with an `error` chunk: "the agent failed (<chat id>)", unless
 * `exposeErrors`; the error goes to `onError`.
 *
 * Errors are plain-text responses before any stream starts: 400 for a body that is not a chat
 * request or a chat id a store cannot name, 403 for a request from another site or for a host the
 * server does not answer to, 404 for decisions on a chat the store does not hold, 409 for decisions
 * on a chat whose turn has ended (a double click, a second tab), a turn while another of the same
 * chat is going (so of two answers at once one is taken), decisions for calls that wait for none
 * (another chat's, or already decided), a message that answers no waiting question, an answer that
 * does not fit its question's shape, a message for a chat that waits for a decision or an answer,
 * and a message for a chat id another tenant holds; 405 for other methods.
 */
export function chatHandler(serve: ServeOptions): (request: Request) => Promise<Response> {
  // The chunks of each chat's turn this handler drives, for a client that follows it, and of the turn paused last.
  const going = new Map<string, TurnFeed>();
  const paused = new Map<string, TurnFeed>();
  return frontDoor(
    serve,
    async (request, principal) => {
      if (request.method === "GET") return get(serve, going, request, principal);
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
      return post(serve, going, paused, turn, principal);
    },
    text,
  );
}

async function post(
  serve: ServeOptions,
  going: Map<string, TurnFeed>,
  paused: Map<string, TurnFeed>,
  turn: ChatTurn,
  principal: Principal | undefined,
): Promise<Response> {
  const { chatId } = turn;
  const state = await stateOf(serve, principal, chatId);
  if (state instanceof Response) return state;
  const answers = turn.kind === "decisions" ? answersOf(state, turn.outputs) : {};
  const ask =
    turn.kind === "message"
      ? { kind: "message" as const, content: turn.content, regenerate: turn.regenerate }
      : { kind: "resume" as const, decisions: turn.decisions, answers };
  const step = decideTurn("chat", chatId, state, ask);
  if (step instanceof ServeRefusal) return text(step.status, step.message);
  if (step.kind === "follow" || step.kind === "follow-log")
    return text(409, `a turn of chat '${chatId}' is still going: GET its stream to follow it`);
  // The message the decisions continue, for a client that resumes: kept since the pause, else (a restart, another process) from the log.
  const before =
    turn.kind !== "decisions"
      ? undefined
      : (paused.get(chatId) ?? (await pausedTurnChunks(serve.store, chatId, state)));
  const taken = takeTurn(serve, principal, chatId, step, { noun: "chat" });
  if (taken instanceof ServeRefusal) return text(taken.status, taken.message);
  const feed = turn.kind === "decisions" ? TurnFeed.continuing(before, turn.messageId) : new TurnFeed();
  going.set(chatId, feed);
  const { feed: events, live } = taken;
  try {
    // A run that ends without telling an event (nothing left to do) has started and ended.
    await events.started;
  } catch (error) {
    going.delete(chatId);
    const { status, message } = refusalOf(serve, chatId, error);
    return text(status, message);
  }
  paused.delete(chatId);
  const from = feed.length;
  const messageId = turn.kind === "decisions" ? turn.messageId : crypto.randomUUID();
  // The calls a cut-off turn left open are shown first: the finished turn tells their results.
  const shown: UIMessageChunk[] = (state.kind === "cut-off" ? state.open : []).map((call) => ({
    type: "tool-input-available",
    toolCallId: call.id,
    toolName: call.name,
    input: call.args,
  }));
  // The run logs the answers without a stream event: the parts they answer are shown answered after `start`.
  for (const [toolCallId, output] of Object.entries(answers)) {
    shown.push({ type: "tool-output-available", toolCallId, output });
  }
  const errorText = (error: unknown) => clientError({ exposeErrors: serve.exposeErrors }, chatId, error);
  void pump(toUIMessageStream(events, { messageId, errorText }), feed, shown, async () => {
    // Before the readers see the end: a client that posts again as soon as it has read the turn finds the chat free.
    const result = await events.result.catch(() => null);
    await live.ended;
    if (result?.status === "awaiting_approval" || result?.status === "awaiting_input") paused.set(chatId, feed);
    going.delete(chatId);
  });
  return uiMessageStreamResponse(feed.read(from));
}

/** The answers a message gives: the outputs of its parts for the questions the chat's run waits on. */
function answersOf(state: ConversationState, outputs: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  if (state.kind !== "waiting") return answers;
  for (const { id } of state.questions) if (Object.hasOwn(outputs, id)) answers[id] = outputs[id];
  return answers;
}

async function pump(
  stream: ReadableStream<UIMessageChunk>,
  feed: TurnFeed,
  afterStart: readonly UIMessageChunk[],
  settle: () => Promise<void>,
): Promise<void> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      feed.push(value);
      if (value.type === "start") for (const chunk of afterStart) feed.push(chunk);
    }
  } finally {
    await settle();
    feed.end();
  }
}

async function get(
  serve: ServeOptions,
  going: ReadonlyMap<string, TurnFeed>,
  request: Request,
  principal: Principal | undefined,
): Promise<Response> {
  const match = /\/([^/]+)\/(stream|messages)$/.exec(new URL(request.url).pathname);
  if (match === null) return text(404, "a GET names a chat's stream or messages: <api>/<chat id>/stream|messages");
  let chatId: string;
  try {
    chatId = decodeURIComponent(match[1] as string);
  } catch {
    return text(400, "the chat id in the path is not URI-encoded text");
  }
  const problem = chatIdProblem(chatId);
  if (problem !== null) return text(400, problem);
  const state = await stateOf(serve, principal, chatId);
  if (state instanceof Response) return state;
  // Another tenant's chat is answered as one the store does not hold: no messages, no turn going.
  if (state.kind === "none" || state.kind === "foreign") {
    return match[2] === "messages" ? Response.json([]) : new Response(null, { status: 204 });
  }
  if (match[2] === "messages") return Response.json(await loadChat({ store: serve.store, chatId }));
  const feed = going.get(chatId);
  if (feed !== undefined) return uiMessageStreamResponse(feed.read(0));
  // A turn another process drives (or this one, through another handler) is followed from its log.
  if (state.kind !== "held" && state.kind !== "going") return new Response(null, { status: 204 });
  const events = state.kind === "held" ? state.events : await serve.store.read(chatId);
  return followed(serve, chatId, events, request.signal);
}

/**
 * The turn in progress of chat `chatId`, read from its log as it grows until the turn ends: the
 * assistant message under the id a loaded chat gives it (`<chatId>-<turn>-assistant`).
 */
function followed(serve: ServeOptions, chatId: string, events: readonly StoredEvent[], signal: AbortSignal): Response {
  const from = turnStartOf(events);
  const turns = events
    .slice(0, from + 1)
    .filter((event) => event.type === "run.started" || event.type === "user.messaged").length;
  const messageId = `${chatId}-${Math.max(turns - 1, 0)}-assistant`;
  const feed = followLog(serve.store, chatId, { from, signal });
  const errorText = (error: unknown) => clientError({ exposeErrors: serve.exposeErrors }, chatId, error);
  return uiMessageStreamResponse(toUIMessageStream(feed, { messageId, errorText }));
}

/** Where chat `chatId` stands for `principal`, or the answer to a log that cannot be read, as `refusalOf` tells it. */
async function stateOf(
  serve: ServeOptions,
  principal: Principal | undefined,
  chatId: string,
): Promise<ConversationState | Response> {
  try {
    return await conversationState(serve, principal, chatId);
  } catch (error) {
    const { status, message } = refusalOf(serve, chatId, error);
    return text(status, message);
  }
}

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}
