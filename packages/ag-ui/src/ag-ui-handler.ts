import { type BaseEvent, EventType, type ResumeEntry, type RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import {
  type AgentResult,
  type AgentStreamEvent,
  continueAgent,
  type Decision,
  EventLogError,
  type MessageContent,
  replayRun,
  resumeAgent,
  runAgent,
  type ToolCall,
} from "@agentloop/core";
import { treePending, treeQuestions } from "@agentloop/core/driver";
import { eventFeed } from "./event-feed.js";
import { type ServeOptions, turnOptionsOf } from "./serve-options.js";
import { toAgUiEvents } from "./to-ag-ui-events.js";
import { lastUserContent, UserContentError } from "./user-content.js";

/** What a store can name a run: the JSONL store's file names, which every store takes. */
const RUN_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

/**
 * A web-standard handler speaking AG-UI: it takes a `RunAgentInput` POSTed as JSON and answers with
 * the run's AG-UI events over SSE. The thread id names the conversation, kept in the store as one
 * run under that id: the first input starts it with the last user message as the task, a later one
 * continues it with its last user message (`continueAgent`). A run waiting for approval ends with an
 * interrupt outcome; the next input's `resume[]` decides each waiting call (`resolved` approves
 * unless its payload says `approved: false`; `cancelled` denies) and the run goes on (`resumeAgent`).
 * A question of an ask-user tool is an interrupt too (reason `user_input`, the question as its
 * message, the answer's JSON Schema as `responseSchema`): a `resolved` entry's payload is the
 * answer, checked against that shape.
 * Only what the store holds is trusted: earlier messages the client sends are not taken over the log.
 * Every run is given `options`; a continued or resumed one again what its log cannot hold
 * (`prepareStep`, `fallbackModels`, the summarizer). A run that was cut off (a model call that
 * failed, a process that died) is finished from its log by the thread's next message, which then
 * continues it in the same stream.
 *
 * Refused before any event, with a JSON `{ error }`: a method other than POST (405), a body that is
 * not a `RunAgentInput` or a thread id that cannot name a run (400), a resume for a thread the store
 * does not hold (404), a resume that does not answer exactly the open interrupts, an answer that
 * does not fit its question or comes without a payload, a resume another request took first, a new
 * message for a thread that waits (409). A client that goes away mid-stream does not stop the run:
 * it goes on to its next pause or end, and everything it does is in the log.
 */
export function agUiHandler(options: ServeOptions): (request: Request) => Promise<Response> {
  // The threads whose run this handler drives now: a message for one is no cut-off run to take up.
  const going = new Set<string>();
  return async (request) => {
    if (request.method !== "POST") return refuse(405, "an AG-UI agent takes a RunAgentInput by POST");
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return refuse(400, "the body is not JSON: an AG-UI agent takes a RunAgentInput");
    }
    const parsed = RunAgentInputSchema.safeParse(body);
    if (!parsed.success) return refuse(400, `the body is not a RunAgentInput: ${parsed.error.message}`);
    const input = parsed.data as RunAgentInput;
    if (!RUN_ID.test(input.threadId)) {
      const id = input.threadId;
      const shown = JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}… (${id.length} characters)` : id).slice(1, -1);
      return refuse(
        400,
        `thread id '${shown}' cannot name a run: use 1-128 letters, digits, '_', '-' or '.', not starting with '.'`,
      );
    }
    const { threadId } = input;
    if (going.has(threadId)) {
      return refuse(409, `a run of thread '${threadId}' is still going: send the message once it has ended`);
    }
    // Claimed before the first await, so that a second request for the thread is refused.
    going.add(threadId);
    let planned: Planned | Refusal;
    try {
      planned = await planRun(input, options);
    } catch (error) {
      going.delete(threadId);
      throw error;
    }
    if (planned instanceof Refusal) {
      going.delete(threadId);
      return refuse(planned.status, planned.error);
    }
    const { start } = planned;
    const feed = eventFeed((onEvent) => start(onEvent).finally(() => going.delete(threadId)));
    // A resume refused by the run itself (an answer that does not fit, a thread another request
    // took first) is refused before any event, as the handler's own checks are.
    if ((input.resume ?? []).length > 0) {
      try {
        await feed.started;
      } catch (error) {
        if (error instanceof RangeError || error instanceof EventLogError) return refuse(409, error.message);
        throw error;
      }
    }
    const events = toAgUiEvents(feed, { threadId: input.threadId, runId: input.runId });
    return agUiEventStreamResponse(withAnswers(events, planned.answers, input.runId, planned.shown ?? []));
  };
}

type Start = (onEvent: (event: AgentStreamEvent) => void) => Promise<AgentResult>;
/**
 * How the run starts, the answers the resume gives (shown as their questions' results), and the
 * calls of a cut-off run still open (shown before the resumed run tells their results).
 */
interface Planned {
  readonly start: Start;
  readonly answers: Readonly<Record<string, unknown>>;
  readonly shown?: readonly ToolCall[];
}
/** Why a request is turned away before any event, and with which HTTP status. */
class Refusal {
  constructor(
    readonly status: number,
    readonly error: string,
  ) {}
}

async function planRun(input: RunAgentInput, serve: ServeOptions): Promise<Planned | Refusal> {
  const { model, registry, store } = serve;
  const again = turnOptionsOf(serve.options);
  const threadId = input.threadId;
  const logged = await store.read(threadId);
  const resume = input.resume ?? [];
  const open = logged.length === 0 ? NOTHING_OPEN : await openInterrupts(serve, threadId, logged);
  if (resume.length > 0) {
    if (logged.length === 0) return new Refusal(404, `thread '${threadId}' is not known: there is nothing to resume`);
    const given = resumeFor(threadId, resume, open);
    if (given instanceof Refusal) return given;
    const { decisions, answers } = given;
    return {
      start: (onEvent) => resumeAgent(threadId, model, registry, { ...again, store, decisions, answers, onEvent }),
      answers,
    };
  }
  if (open.calls.length > 0 || open.questions.length > 0) {
    return new Refusal(409, `thread '${threadId}' waits for ${waitsFor(open)}: answer them with resume[]`);
  }
  let message: MessageContent | null;
  try {
    message = lastUserContent(input);
  } catch (error) {
    if (error instanceof UserContentError) return new Refusal(400, error.message);
    throw error;
  }
  if (message === null)
    return new Refusal(400, "the input has no user message to run: the last message must be the user's, with text");
  if (logged.length === 0) {
    const start: Start = (onEvent) =>
      runAgent(message, model, registry, { ...serve.options, store, runId: threadId, onEvent });
    return { start, answers: {} };
  }
  const next: Start = (onEvent) => continueAgent(threadId, message, model, registry, { ...again, store, onEvent });
  if (open.finished) return { start: next, answers: {} };
  // Cut off (a model call that failed, a process that died): the run is finished from its log first.
  const finish: Start = (onEvent) => resumeAgent(threadId, model, registry, { ...again, store, onEvent });
  return { start: (onEvent) => resumeThenContinue(finish, next, onEvent), answers: {}, shown: openCalls(logged) };
}

/** The interrupts a thread's run has open: calls waiting for decisions and questions waiting for answers, by id. */
interface Open {
  readonly calls: readonly string[];
  readonly questions: readonly string[];
  /** The run has ended (a new message continues it); else, with nothing open, it was cut off. */
  readonly finished: boolean;
}
const NOTHING_OPEN: Open = { calls: [], questions: [], finished: true };

/** What the thread's run waits on, read from its log (a child's by chained id); nothing when it waits for nothing. */
async function openInterrupts(
  serve: ServeOptions,
  threadId: string,
  logged: Parameters<typeof replayRun>[0],
): Promise<Open> {
  const replay = replayRun(logged, { runId: threadId });
  if (replay.finished) return NOTHING_OPEN;
  const calls = (await treePending(serve.store, threadId, replay)).map((call) => call.id);
  const questions = (await treeQuestions(serve.store, threadId, replay)).map((question) => question.id);
  return { calls, questions, finished: false };
}

function waitsFor(open: Open): string {
  const parts = [];
  if (open.calls.length > 0) parts.push(`decisions on ${open.calls.join(", ")}`);
  if (open.questions.length > 0) parts.push(`answers to ${open.questions.join(", ")}`);
  return parts.length === 0 ? "no decision" : parts.join(" and ");
}

/**
 * The decisions and answers `resume` gives: every open interrupt once, an approval's as a
 * decision, a question's `resolved` payload as its answer (checked against the question's shape
 * when the run resumes). Anything else is refused.
 */
function resumeFor(
  threadId: string,
  resume: readonly ResumeEntry[],
  open: Open,
): { decisions: Record<string, Decision>; answers: Record<string, unknown> } | Refusal {
  const decisions: Record<string, Decision> = {};
  const answers: Record<string, unknown> = {};
  for (const entry of resume) {
    const id = entry.interruptId;
    const asks = open.questions.includes(id);
    if (!asks && !open.calls.includes(id)) {
      const now = waitsFor(open);
      return new Refusal(
        409,
        `thread '${threadId}' has no interrupt '${id}': it waits for ${now}${now === "no decision" ? "" : " only"}`,
      );
    }
    if (Object.hasOwn(decisions, id) || Object.hasOwn(answers, id))
      return new Refusal(409, `interrupt '${id}' is answered twice`);
    if (!asks) decisions[id] = decisionOf(entry);
    else if (entry.status === "resolved" && entry.payload !== undefined) answers[id] = entry.payload;
    else
      return new Refusal(409, `interrupt '${id}' asks the user a question: resolve it with the answer as its payload`);
  }
  const unanswered = [...open.calls, ...open.questions].filter(
    (id) => !Object.hasOwn(decisions, id) && !Object.hasOwn(answers, id),
  );
  if (unanswered.length > 0) {
    return new Refusal(409, `resume[] must answer every open interrupt; unanswered: ${unanswered.join(", ")}`);
  }
  return { decisions, answers };
}

function decisionOf(entry: ResumeEntry): Decision {
  if (entry.status === "cancelled") return { approved: false, reason: "the user cancelled the request" };
  const payload: unknown = entry.payload;
  if (typeof payload !== "object" || payload === null) return { approved: true };
  const { approved, reason } = payload as { approved?: unknown; reason?: unknown };
  return {
    approved: approved !== false,
    ...(typeof reason === "string" ? { reason } : {}),
  };
}

/**
 * Finishes a cut-off run from its log (`resume`), then runs `next` (the new message's turn) in the
 * same stream: the resumed run's end is told only if it stops there, waiting for a person.
 */
async function resumeThenContinue(
  resume: Start,
  next: Start,
  onEvent: (event: AgentStreamEvent) => void,
): Promise<AgentResult> {
  let end: AgentStreamEvent | undefined;
  const resumed = await resume((event) => {
    if (event.type === "finished" && event.origin === undefined) end = event;
    else onEvent(event);
  });
  if (resumed.status === "awaiting_approval" || resumed.status === "awaiting_input") {
    if (end !== undefined) onEvent(end);
    return resumed;
  }
  return next(onEvent);
}

/** The calls of a cut-off run's last reply that have no result logged: the resumed run tells their results. */
function openCalls(logged: Parameters<typeof replayRun>[0]): ToolCall[] {
  let open: ToolCall[] = [];
  for (const event of logged) {
    if (event.type === "model.replied") open = [...event.reply.toolCalls];
    else if (event.type === "tool.finished") open = open.filter((call) => call.id !== event.callId);
  }
  return open;
}

/** The run's events with each answer shown as its question's result just after `RUN_STARTED`: the run logs an answer without a stream event. */
async function* withAnswers(
  events: AsyncIterable<BaseEvent>,
  answers: Readonly<Record<string, unknown>>,
  runId: string,
  shown: readonly ToolCall[],
): AsyncIterable<BaseEvent> {
  for await (const event of events) {
    yield event;
    if (event.type !== EventType.RUN_STARTED) continue;
    for (const call of shown) {
      const parentMessageId = `${runId}-calls`;
      yield {
        type: EventType.TOOL_CALL_START,
        toolCallId: call.id,
        toolCallName: call.name,
        parentMessageId,
      } as BaseEvent;
      yield { type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta: JSON.stringify(call.args) } as BaseEvent;
      yield { type: EventType.TOOL_CALL_END, toolCallId: call.id } as BaseEvent;
    }
    for (const [toolCallId, answer] of Object.entries(answers)) {
      const content = JSON.stringify(answer) ?? "null";
      const messageId = `${runId}-result-${toolCallId}`;
      yield { type: EventType.TOOL_CALL_RESULT, messageId, toolCallId, content, role: "tool" } as BaseEvent;
    }
  }
}

function refuse(status: number, error: string): Response {
  return Response.json({ error }, { status });
}

/**
 * AG-UI events as the SSE response `agUiHandler` answers with: one `data:` line of JSON each. A
 * client that goes away stops the stream, not the run behind it.
 */
export function agUiEventStreamResponse(events: AsyncIterable<BaseEvent>): Response {
  const encoder = new TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done === true) controller.close();
      else controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
    },
    async cancel() {
      // The client went away: stop telling it, not the run, which goes on into the log.
      await iterator.return?.();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
  });
}
