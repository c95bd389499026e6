import type { AgentResult, AgentStreamEvent, EventStore } from "@agentloop/core";
import { continueAgent, EventLogError, replayRun, resumeAgent, runAgent } from "@agentloop/core";
import { treePending, treeQuestions } from "@agentloop/core/driver";
import type { UIMessageChunk } from "ai";
import { ChatRequestError, type ChatTurn, chatIdProblem, readChatTurn } from "./chat-request.js";
import { loadChat } from "./load-chat.js";
import { runEvents } from "./run-events.js";
import { type ServeOptions, turnOptionsOf } from "./serve-options.js";
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
 * going from its start and follows it (204 when none is); a client that leaves stops reading, not
 * the run, which goes on to its end in the store. A GET of `<api>/<chat id>/messages` answers the
 * chat's `UIMessage[]` as JSON, built from the log (`loadChat`): what a reloaded page starts from.
 * Every turn runs with `options`: a continued or resumed one is given again what its log cannot
 * hold (`prepareStep`, `fallbackModels`, the summarizer, `output`, `guardrails`, the safeguards).
 * A turn that was cut off (a model call that failed, a process that died) is finished from its log
 * by the chat's next message, which then continues it in the same stream; a `regenerate` finishes
 * it alone.
 *
 * Errors are plain-text responses before any stream starts: 400 for a body that is not a chat
 * request or a chat id a store cannot name, 404 for decisions on a chat the store does not hold,
 * 409 for decisions on a chat whose turn has ended (a double click, a second tab), a turn while
 * another of the same chat is going (so of two answers at once one is taken), decisions for calls
 * that wait for none (another chat's, or already decided), a message that answers no waiting
 * question, an answer that does not fit its question's shape, and a message for a chat that waits
 * for a decision or an answer; 405 for other methods.
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
    const feed = turn.kind === "decisions" ? TurnFeed.continuing(paused.get(turn.chatId)) : new TurnFeed();
    // Claimed before the first await, so that a second request for the chat (two answers at once) is refused.
    going.set(turn.chatId, feed);
    let planned: Planned | Response;
    try {
      planned = await plan(serve.store, turn);
    } catch (error) {
      going.delete(turn.chatId);
      throw error;
    }
    if (planned instanceof Response) {
      going.delete(turn.chatId);
      return planned;
    }
    const events = runEvents((onEvent) => start(serve, turn, planned, onEvent));
    try {
      // A run that ends without telling an event (nothing left to do) has started and ended.
      await Promise.race([events.started, events.result]);
    } catch (error) {
      going.delete(turn.chatId);
      return refusal(error);
    }
    paused.delete(turn.chatId);
    const from = feed.length;
    const messageId = turn.kind === "decisions" ? turn.messageId : crypto.randomUUID();
    // The run logs the answers without a stream event: the parts they answer are shown answered after `start`.
    const answered = Object.entries(planned.answers).map(
      ([toolCallId, output]): UIMessageChunk => ({ type: "tool-output-available", toolCallId, output }),
    );
    void pump(toUIMessageStream(events, { messageId }), feed, [...(planned.shown ?? []), ...answered], async () => {
      // Before the readers see the end: a client that posts again as soon as it has read the turn finds the chat free.
      const result = await events.result.catch(() => null);
      if (result?.status === "awaiting_approval" || result?.status === "awaiting_input") paused.set(turn.chatId, feed);
      going.delete(turn.chatId);
    });
    return uiMessageStreamResponse(feed.read(from));
  };
}

/**
 * What a turn runs with: whether the store holds the chat, whether its last turn was cut off (a
 * failed model call, a process that died: the run is neither finished nor waiting for a person),
 * and the answers it gives.
 */
interface Planned {
  readonly held: boolean;
  readonly cutOff: boolean;
  readonly answers: Readonly<Record<string, unknown>>;
  /** What the stream shows after its start of what the log holds: the calls of a cut-off turn still open. */
  readonly shown?: readonly UIMessageChunk[];
}

/**
 * Reads what the turn runs with from the log: the answers are the outputs of the message's parts
 * for the questions the chat's run waits on. Decisions or outputs for a chat the store does not
 * hold are refused (404), and so is a message that gives neither a decision nor an answer to a
 * waiting question (409).
 */
async function plan(store: EventStore, turn: ChatTurn): Promise<Planned | Response> {
  const logged = await store.read(turn.chatId);
  if (turn.kind === "message") {
    if (logged.length === 0) return { held: false, cutOff: false, answers: {} };
    const replay = replayRun(logged, { runId: turn.chatId });
    if (replay.result !== null) return { held: true, cutOff: false, answers: {} };
    const calls = await treePending(store, turn.chatId, replay);
    const questions = await treeQuestions(store, turn.chatId, replay);
    if (calls.length === 0 && questions.length === 0) {
      return { held: true, cutOff: true, answers: {}, shown: openCalls(logged) };
    }
    const waits = [...calls, ...questions].map(({ id }) => `'${id}'`).join(", ");
    return text(
      409,
      `chat '${turn.chatId}' is not finished: it waits for a decision or an answer on ${waits}; give those first`,
    );
  }
  if (logged.length === 0) return text(404, `no chat '${turn.chatId}' is held`);
  const replay = replayRun(logged, { runId: turn.chatId });
  // A stale approval (a double click, a second tab) for a turn that has ended: a finished run takes no decision.
  if (replay.result !== null && Object.keys(turn.decisions).length > 0) {
    const ids = Object.keys(turn.decisions)
      .map((id) => `'${id}'`)
      .join(", ");
    return text(409, `chat '${turn.chatId}' waits for no decision (on ${ids}): its turn has ended; send a new message`);
  }
  const waiting = replay.result === null ? await treeQuestions(store, turn.chatId, replay) : [];
  const answers: Record<string, unknown> = {};
  for (const { id } of waiting) if (Object.hasOwn(turn.outputs, id)) answers[id] = turn.outputs[id];
  if (Object.keys(answers).length > 0 || Object.keys(turn.decisions).length > 0) {
    return { held: true, cutOff: false, answers };
  }
  const listed = waiting.map(({ id }) => `'${id}'`).join(", ");
  return text(
    409,
    waiting.length === 0
      ? `chat '${turn.chatId}' waits for no answer: no question of it is open`
      : `chat '${turn.chatId}' waits for answers to ${listed}, and the message answers none of them`,
  );
}

function start(
  serve: ServeOptions,
  turn: ChatTurn,
  planned: Planned,
  onEvent: (event: AgentStreamEvent) => void,
): ReturnType<typeof runAgent> {
  const { model, registry, store } = serve;
  const again = turnOptionsOf(serve.options);
  const { chatId } = turn;
  if (turn.kind === "decisions") {
    const { decisions } = turn;
    return resumeAgent(chatId, model, registry, { ...again, store, decisions, answers: planned.answers, onEvent });
  }
  const next = (listener: typeof onEvent) =>
    continueAgent(chatId, turn.content, model, registry, { ...again, store, onEvent: listener });
  if (planned.cutOff) {
    // The page's regenerate asks for the cut-off answer; a new message comes after it.
    const resume = (listener: typeof onEvent) =>
      resumeAgent(chatId, model, registry, { ...again, store, onEvent: listener });
    return resumeThenContinue(resume, turn.regenerate ? null : next, onEvent);
  }
  if (planned.held) return next(onEvent);
  return runAgent(turn.content, model, registry, { ...serve.options, store, runId: chatId, onEvent });
}

/**
 * The calls of a cut-off turn's last reply that have no result logged, as the stream shows a call:
 * the resumed run tells their results, which a page can only show on a part it holds.
 */
function openCalls(logged: Awaited<ReturnType<EventStore["read"]>>): UIMessageChunk[] {
  let open: UIMessageChunk[] = [];
  for (const event of logged) {
    if (event.type === "model.replied") {
      open = event.reply.toolCalls.map((call) => ({
        type: "tool-input-available",
        toolCallId: call.id,
        toolName: call.name,
        input: call.args,
      }));
    } else if (event.type === "tool.finished") {
      open = open.filter((chunk) => !("toolCallId" in chunk) || chunk.toolCallId !== event.callId);
    }
  }
  return open;
}

type Run = (onEvent: (event: AgentStreamEvent) => void) => Promise<AgentResult>;

/**
 * Finishes a cut-off turn from its log (`resume`), then runs `next` (the new message's turn) in the
 * same stream: the resumed turn's end is told only if the run stops there (it waits for a person,
 * or there is no next turn). Nothing the log holds is asked or run again.
 */
async function resumeThenContinue(
  resume: Run,
  next: Run | null,
  onEvent: (event: AgentStreamEvent) => void,
): Promise<AgentResult> {
  let end: AgentStreamEvent | undefined;
  const resumed = await resume((event) => {
    if (event.type === "finished" && event.origin === undefined) end = event;
    else onEvent(event);
  });
  if (next === null || resumed.status === "awaiting_approval" || resumed.status === "awaiting_input") {
    if (end !== undefined) onEvent(end);
    return resumed;
  }
  return next(onEvent);
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

async function get(store: EventStore, going: ReadonlyMap<string, TurnFeed>, request: Request): Promise<Response> {
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
