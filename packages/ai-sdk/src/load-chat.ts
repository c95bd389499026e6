import type {
  AgentResult,
  AgentStreamEvent,
  EventOrigin,
  EventStore,
  MessageContent,
  PendingQuestion,
  ToolCall,
} from "@agentloop/core";
import { readTree } from "@agentloop/core";
import { partUrl } from "@agentloop/core/adapter";
import type { RunEvent, StoredEvent } from "@agentloop/core/store";
import type { UIMessage, UIMessageChunk } from "ai";
import { toUIMessageStream } from "./to-ui-message-stream.js";

/** Which chat to load, and from where. */
export interface LoadChatOptions {
  readonly store: EventStore;
  readonly chatId: string;
}

/** One turn of a chat's log: the user's message and the events that answer it, up to the turn's end. */
interface Turn {
  readonly content: MessageContent;
  readonly events: StoredEvent[];
  ended: boolean;
}

/**
 * The `UIMessage[]` a page shows for chat `chatId`, built from the store's log only (what a page
 * passes to `useChat({ messages })` after a reload): per turn the user's message and the assistant's
 * message as the UI message stream wrote it — text, reasoning, tool parts with their input, output,
 * error or denial, a call still waiting in `approval-requested`, a question still waiting in
 * `input-available` (answered with `addToolOutput`), an answered one with its answer as output. The assistant message of a turn
 * still going is left out: `useChat`'s `resume` replays it from the handler. Ids are stable
 * (`<chatId>-<turn>-user`, `<chatId>-<turn>-assistant`), so a decision taken on a loaded message
 * continues it. An agent tool's child shows as it did live: its calls, approvals, questions and
 * results under chained ids (read from the child's own log), its answer as the agent tool's output.
 * A question a running tool asked (`ctx.ask`) is a `data-question` part, as the stream wrote it.
 * An unknown chat is `[]`.
 */
export async function loadChat({ store, chatId }: LoadChatOptions): Promise<UIMessage[]> {
  const events = await store.read(chatId);
  if (events.length === 0) return [];
  const turns = turnsOf(events);
  const last = turns.at(-1) as Turn;
  const paused = last.ended ? NOT_PAUSED : await pausedOn(store, chatId, events);
  const messages: UIMessage[] = [];
  for (const [index, turn] of turns.entries()) {
    messages.push({ id: `${chatId}-${index}-user`, role: "user", parts: userParts(turn.content) });
    const going = turn === last && !turn.ended && paused.calls.length === 0 && paused.questions.length === 0;
    if (going) break;
    messages.push(
      await lastMessageOf(await turnStream(store, chatId, turn, index, turn === last ? paused : NOT_PAUSED)),
    );
  }
  return messages;
}

/**
 * The chunks of the assistant message of chat `chatId`'s last turn as the log holds it, when the
 * chat waits (`state`) on decisions or answers: what a stream that continues that message replays
 * first, for a process that did not stream the pause. None when the chat does not wait.
 */
export async function pausedTurnChunks(
  store: EventStore,
  chatId: string,
  state: { readonly kind: string; readonly events?: readonly StoredEvent[] },
): Promise<UIMessageChunk[]> {
  if (state.kind !== "waiting" || state.events === undefined) return [];
  const events = state.events;
  const turns = turnsOf(events);
  const last = turns.at(-1);
  if (last === undefined || last.ended) return [];
  const paused = await pausedOn(store, chatId, events);
  if (paused.calls.length === 0 && paused.questions.length === 0) return [];
  const stream = await turnStream(store, chatId, last, turns.length - 1, paused);
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
  return chunks;
}

/** The assistant message of turn `index` (the `index`-th of the chat) as its live run streamed it, from the log. */
async function turnStream(store: EventStore, chatId: string, turn: Turn, index: number, paused: Paused) {
  const streamEvents = await streamEventsOf(store, chatId, turn, paused);
  return toUIMessageStream(fromList(streamEvents), { messageId: `${chatId}-${index}-assistant` });
}

function turnsOf(events: readonly StoredEvent[]): Turn[] {
  const turns: Turn[] = [];
  for (const event of events) {
    if (event.type === "run.started") turns.push({ content: event.settings.task, events: [], ended: false });
    else if (event.type === "user.messaged") turns.push({ content: event.content, events: [], ended: false });
    const turn = turns.at(-1);
    if (turn === undefined) continue;
    turn.events.push(event);
    if (event.type === "run.finished") turn.ended = true;
  }
  return turns;
}

/** A user message's parts as the page sent them: its text, and each image or file as a file part with its URL (`data:` for bytes). */
function userParts(content: MessageContent): UIMessage["parts"] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part) => {
    if (part.type === "text") return { type: "text", text: part.text };
    const url = partUrl(part)?.href ?? `data:${part.mediaType};base64,${String(part.data)}`;
    const filename = part.type === "file" ? part.filename : undefined;
    return { type: "file", mediaType: part.mediaType, url, ...(filename === undefined ? {} : { filename }) };
  });
}

/** What the last turn waits on: calls for decisions, questions for answers. */
interface Paused {
  readonly calls: readonly ToolCall[];
  readonly questions: readonly PendingQuestion[];
}
const NOT_PAUSED: Paused = { calls: [], questions: [] };

/** What the chat's run waits on, its children's calls and questions included (chained ids, read from their logs). */
async function pausedOn(store: EventStore, chatId: string, events: readonly StoredEvent[]): Promise<Paused> {
  const tree = await readTree(store, chatId, { events, waitingOnly: true });
  return { calls: tree.treeWaiting, questions: tree.treeQuestions };
}

/**
 * The stream events a turn's logged events stand for, as the live run sent them (its failed
 * attempts left out), with the events of each agent tool's child (from the child's own log, read
 * where the call started) as the run told them, under the child's origin.
 */
async function streamEventsOf(
  store: EventStore,
  chatId: string,
  turn: Turn,
  paused: Paused,
): Promise<AgentStreamEvent[]> {
  const { out, steps, output } = await runEventsOf(store, turn.events, undefined);
  for (const event of turn.events) {
    if (event.type !== "run.finished") continue;
    const { status, answer, steps: made, tokens } = event.outcome;
    const result: AgentResult = { status, answer, steps: made, tokens, messages: [], runId: chatId };
    out.push({ type: "finished", result: output === undefined ? result : { ...result, output } });
  }
  const { calls: waiting, questions } = paused;
  for (const call of waiting) out.push({ type: "decision-requested", call });
  if (waiting.length > 0 || questions.length > 0) {
    const status = waiting.length > 0 ? "awaiting_approval" : "awaiting_input";
    const result: AgentResult = { status, answer: null, steps, tokens: 0, messages: [], runId: chatId };
    out.push({
      type: "finished",
      result: {
        ...result,
        ...(waiting.length > 0 ? { pendingApprovals: waiting } : {}),
        ...(questions.length > 0 ? { pendingQuestions: questions } : {}),
      },
    });
  }
  return out;
}

/**
 * The stream events of one run's logged events (the chat's own run, or at `origin` a child's),
 * without its end: its steps, the decisions asked and given, the results, the questions a running
 * tool asked, and at each agent tool call that started a child, the child's events.
 */
async function runEventsOf(
  store: EventStore,
  events: readonly StoredEvent[],
  origin: EventOrigin | undefined,
): Promise<{ out: AgentStreamEvent[]; steps: number; output: unknown }> {
  const calls = new Map<string, ToolCall>();
  const out: AgentStreamEvent[] = [];
  const told = (event: AgentStreamEvent) => out.push(origin === undefined ? event : { ...event, origin });
  const children = new Set<string>();
  let step = 0;
  let output: unknown;
  const asked = new Set<string>();
  for (const event of events) {
    if (event.type === "model.replied") {
      step += 1;
      for (const call of event.reply.toolCalls) calls.set(call.id, call);
      told({ type: "step-started", step });
      told(logged(event));
    } else if (event.type === "approval.decided") {
      const call = calls.get(event.callId);
      if (call === undefined) continue;
      told({ type: "decision-requested", call });
      told(logged(event));
    } else if (event.type === "tool.started") {
      const { childRunId } = event;
      if (childRunId === undefined || children.has(childRunId)) continue;
      children.add(childRunId);
      const callPath = [...(origin?.callPath ?? []), event.callId];
      const child = await runEventsOf(store, await store.read(childRunId), { callPath, runId: childRunId });
      out.push(...child.out);
    } else if (event.type === "tool.finished") {
      if (calls.has(event.callId)) told(logged(event));
    } else if (event.type === "tool.asked") {
      asked.add(event.callId);
      if (calls.has(event.callId)) told(logged(event));
    } else if (event.type === "question.answered") {
      // An answer is its question's result, as the page showed it once given; a running tool's question
      // is answered inside its call, whose result comes later.
      if (asked.has(event.callId)) continue;
      const content = JSON.stringify(event.answer) ?? "null";
      if (calls.has(event.callId)) told(logged({ type: "tool.finished", callId: event.callId, content }));
    } else if (event.type === "run.cancelled" && origin === undefined) {
      told(logged(event));
    } else if (event.type === "output.checked" && event.valid) {
      output = event.value;
    }
  }
  return { out, steps: step, output };
}

async function* fromList<T>(items: readonly T[]): AsyncIterable<T> {
  yield* items;
}

/**
 * The turn's message as `useChat` would build it from the stream. The AI SDK is loaded here, when a
 * chat is loaded, not with the module: a handler that only answers turns never loads it.
 */
async function lastMessageOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage> {
  const { readUIMessageStream } = await import("ai");
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream })) last = snapshot;
  if (last === undefined) throw new Error("the logged turn wrote no message");
  return structuredClone(last);
}

/** A logged event as the live run told it. */
function logged(event: RunEvent): AgentStreamEvent {
  return { type: "logged", event };
}
