import { type BaseEvent, EventType, type ResumeEntry, type RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import type { Decision, MessageContent, Principal, ToolCall } from "@agentloop/core";
import {
  type ConversationAsk,
  type ConversationState,
  clientError,
  conversationIdProblem,
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
import { toAgUiEvents } from "./to-ag-ui-events.js";
import { lastUserContent, UserContentError } from "./user-content.js";

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
 * An input with no new user message and no `resume[]` for a thread whose turn is going (a page
 * reloaded mid-turn) follows that turn from its start to its end, read from the store as it grows:
 * whichever process drives it.
 * What an input does is decided by `@agentloop/core/serve`, as on every front door: every run is
 * given `options`, a continued or resumed one again what its log cannot hold; a run that was cut
 * off is finished from its log by the thread's next message, which then continues it in the same
 * stream; the front door's checks (`Host`, `Origin`, `authorize`) come first, and another tenant's
 * thread is answered as one the store does not hold. A run that fails ends with `RUN_ERROR`
 * saying "the agent failed (<thread id>)", unless `exposeErrors`; the error goes to `onError`.
 *
 * Refused before any event, with a JSON `{ error }`: a method other than POST (405), a body that is
 * not a `RunAgentInput` or a thread id that cannot name a run (400), a request from another site or
 * for a host the server does not answer to (403), a resume for a thread the store does not hold
 * (404), a resume that does not answer exactly the open interrupts, an answer that does not fit its
 * question or comes without a payload, a resume another request took first, a new message for a
 * thread that waits or whose id another tenant holds (409). A client that goes away mid-stream does
 * not stop the run: it goes on to its next pause or end, and everything it does is in the log.
 */
export function agUiHandler(serve: ServeOptions): (request: Request) => Promise<Response> {
  return frontDoor(serve, (request, principal) => handle(serve, request, principal), refuse);
}

async function handle(serve: ServeOptions, request: Request, principal: Principal | undefined): Promise<Response> {
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
  const { threadId } = input;
  const problem = conversationIdProblem(threadId, "thread id");
  if (problem !== null) return refuse(400, problem);
  const state = await conversationState(serve, principal, threadId);
  const ask = askOf(threadId, input, state);
  if (ask instanceof ServeRefusal) return refuse(ask.status, ask.message);
  const step = decideTurn("thread", threadId, state, ask);
  if (step instanceof ServeRefusal) return refuse(step.status, step.message);
  if (step.kind === "follow" || step.kind === "follow-log") {
    // Followed from the log, whichever process drives the turn: the events it logged since its start, then as they come.
    const events = state.kind === "held" ? state.events : await serve.store.read(threadId);
    const feed = followLog(serve.store, threadId, { from: turnStartOf(events), signal: request.signal });
    const errorText = (error: unknown) => clientError({ exposeErrors: serve.exposeErrors }, threadId, error);
    return agUiEventStreamResponse(toAgUiEvents(feed, { threadId, runId: input.runId }, errorText));
  }
  const turn = takeTurn(serve, principal, threadId, step, { noun: "thread" });
  if (turn instanceof ServeRefusal) return refuse(turn.status, turn.message);
  // A resume refused by the run itself (an answer that does not fit, a thread another request
  // took first) is refused before any event, as the handler's own checks are.
  if (ask.kind === "resume") {
    try {
      await turn.feed.started;
    } catch (error) {
      const { status, message } = refusalOf(serve, threadId, error);
      return refuse(status, message);
    }
  }
  const errorText = (error: unknown) => clientError({ exposeErrors: serve.exposeErrors }, threadId, error);
  const events = toAgUiEvents(turn.feed, { threadId, runId: input.runId }, errorText);
  const answers = ask.kind === "resume" && state.kind === "waiting" ? shownAnswers(ask.answers, state.events) : {};
  const shown = state.kind === "cut-off" ? state.open : [];
  return agUiEventStreamResponse(withAnswers(events, answers, input.runId, shown));
}

/**
 * What the input asks: the decisions and answers of `resume[]`, which must answer every open
 * interrupt once (an approval's entry as a decision, a question's `resolved` payload as its
 * answer); else its last user message.
 */
function askOf(threadId: string, input: RunAgentInput, state: ConversationState): ConversationAsk | ServeRefusal {
  const resume = input.resume ?? [];
  if (resume.length > 0) {
    if (state.kind === "waiting") return resumeFor(threadId, resume, state);
    if (state.kind === "ended" || state.kind === "cut-off") {
      const [first] = resume;
      return new ServeRefusal(
        409,
        `thread '${threadId}' has no interrupt '${first?.interruptId}': it waits for no decision`,
      );
    }
    return { kind: "resume", decisions: decisionsOf(resume), answers: {} };
  }
  if (state.kind === "waiting") {
    return new ServeRefusal(409, `thread '${threadId}' waits for ${waitsFor(state)}: answer them with resume[]`);
  }
  let message: MessageContent | null;
  try {
    message = lastUserContent(input);
  } catch (error) {
    if (error instanceof UserContentError) return new ServeRefusal(400, error.message);
    throw error;
  }
  // An input that asks nothing new of a thread whose turn is going (a reloaded page) follows that turn.
  if (message === null && (state.kind === "going" || state.kind === "held")) return { kind: "read" };
  if (message === null) {
    return new ServeRefusal(
      400,
      "the input has no user message to run: the last message must be the user's, with text",
    );
  }
  return { kind: "message", content: message };
}

function resumeFor(
  threadId: string,
  resume: readonly ResumeEntry[],
  open: Extract<ConversationState, { kind: "waiting" }>,
): ConversationAsk | ServeRefusal {
  const calls = open.calls.map(({ id }) => id);
  const questions = open.questions.map(({ id }) => id);
  const decisions: Record<string, Decision> = {};
  const answers: Record<string, unknown> = {};
  for (const entry of resume) {
    const id = entry.interruptId;
    const asks = questions.includes(id);
    if (!asks && !calls.includes(id)) {
      return new ServeRefusal(
        409,
        `thread '${threadId}' has no interrupt '${id}': it waits for ${waitsFor(open)} only`,
      );
    }
    if (Object.hasOwn(decisions, id) || Object.hasOwn(answers, id)) {
      return new ServeRefusal(409, `interrupt '${id}' is answered twice`);
    }
    if (!asks) decisions[id] = decisionOf(entry);
    else if (entry.status === "resolved" && entry.payload !== undefined) answers[id] = entry.payload;
    else {
      return new ServeRefusal(
        409,
        `interrupt '${id}' asks the user a question: resolve it with the answer as its payload`,
      );
    }
  }
  const unanswered = [...calls, ...questions].filter(
    (id) => !Object.hasOwn(decisions, id) && !Object.hasOwn(answers, id),
  );
  if (unanswered.length > 0) {
    return new ServeRefusal(409, `resume[] must answer every open interrupt; unanswered: ${unanswered.join(", ")}`);
  }
  return { kind: "resume", decisions, answers };
}

function waitsFor(open: Extract<ConversationState, { kind: "waiting" }>): string {
  const parts = [];
  if (open.calls.length > 0) parts.push(`decisions on ${open.calls.map(({ id }) => id).join(", ")}`);
  if (open.questions.length > 0) parts.push(`answers to ${open.questions.map(({ id }) => id).join(", ")}`);
  return parts.join(" and ");
}

function decisionsOf(resume: readonly ResumeEntry[]): Record<string, Decision> {
  return Object.fromEntries(resume.map((entry) => [entry.interruptId, decisionOf(entry)]));
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
 * The answers that are their calls' results, as a client was shown the calls: those to the
 * thread's own calls (not a child's, whose calls a client never sees) that no running tool asked
 * (a tool that asked runs again with the answer, and its result is its own), as `LogTeller` tells them.
 */
function shownAnswers(
  answers: Readonly<Record<string, unknown>>,
  events: readonly StoredEvent[],
): Record<string, unknown> {
  const calls = new Set<string>();
  const asked = new Set<string>();
  for (const event of events) {
    if (event.type === "model.replied") for (const call of event.reply.toolCalls) calls.add(call.id);
    else if (event.type === "tool.asked") asked.add(event.callId);
  }
  return Object.fromEntries(Object.entries(answers).filter(([id]) => calls.has(id) && !asked.has(id)));
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
