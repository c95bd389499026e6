import type { BaseEvent, ResumeEntry, RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import {
  type AgentResult,
  type AgentStreamEvent,
  continueAgent,
  type Decision,
  replayRun,
  resumeAgent,
  runAgent,
} from "@agentloop/core";
import { treePending } from "@agentloop/core/driver";
import { eventFeed } from "./event-feed.js";
import type { ServeOptions } from "./serve-options.js";
import { toAgUiEvents } from "./to-ag-ui-events.js";

const RUN_ID = /^[A-Za-z0-9_.-]+$/;

/**
 * A web-standard handler speaking AG-UI: it takes a `RunAgentInput` POSTed as JSON and answers with
 * the run's AG-UI events over SSE. The thread id names the conversation, kept in the store as one
 * run under that id: the first input starts it with the last user message as the task, a later one
 * continues it with its last user message (`continueAgent`). A run waiting for approval ends with an
 * interrupt outcome; the next input's `resume[]` decides each waiting call (`resolved` approves
 * unless its payload says `approved: false`; `cancelled` denies) and the run goes on (`resumeAgent`).
 * Only what the store holds is trusted: earlier messages the client sends are not taken over the log.
 *
 * Refused before any event, with a JSON `{ error }`: a method other than POST (405), a body that is
 * not a `RunAgentInput` or a thread id that cannot name a run (400), a resume for a thread the store
 * does not hold (404), a resume that does not answer exactly the waiting calls, a new message for a
 * thread that waits for decisions (409). A client that goes away mid-stream does not stop the run:
 * it goes on to its next pause or end, and everything it does is in the log.
 */
export function agUiHandler(options: ServeOptions): (request: Request) => Promise<Response> {
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
      return refuse(400, `thread id '${input.threadId}' cannot name a run: use letters, digits, '_', '-' and '.'`);
    }
    const start = await planRun(input, options);
    if (start instanceof Refusal) return refuse(start.status, start.error);
    return agUiEventStreamResponse(toAgUiEvents(eventFeed(start), { threadId: input.threadId, runId: input.runId }));
  };
}

type Start = (onEvent: (event: AgentStreamEvent) => void) => Promise<AgentResult>;
/** Why a request is turned away before any event, and with which HTTP status. */
class Refusal {
  constructor(
    readonly status: number,
    readonly error: string,
  ) {}
}

async function planRun(input: RunAgentInput, serve: ServeOptions): Promise<Start | Refusal> {
  const { model, registry, store } = serve;
  const threadId = input.threadId;
  const logged = await store.read(threadId);
  const resume = input.resume ?? [];
  const waiting = logged.length === 0 ? null : await waitingCalls(serve, threadId, logged);
  if (resume.length > 0) {
    if (logged.length === 0) return new Refusal(404, `thread '${threadId}' is not known: there is nothing to resume`);
    const decisions = decisionsFor(threadId, resume, waiting ?? []);
    if (decisions instanceof Refusal) return decisions;
    return (onEvent) => resumeAgent(threadId, model, registry, { store, decisions, onEvent });
  }
  if (waiting !== null && waiting.length > 0) {
    return new Refusal(
      409,
      `thread '${threadId}' waits for decisions on ${waiting.join(", ")}: answer them with resume[]`,
    );
  }
  const message = lastUserText(input);
  if (message === null)
    return new Refusal(400, "the input has no user message to run: the last message must be the user's, with text");
  if (logged.length === 0) {
    return (onEvent) => runAgent(message, model, registry, { ...serve.options, store, runId: threadId, onEvent });
  }
  return (onEvent) => continueAgent(threadId, message, model, registry, { store, onEvent });
}

/** The ids of the calls the thread's run waits on a decision for; empty when it waits for none. */
async function waitingCalls(
  serve: ServeOptions,
  threadId: string,
  logged: Parameters<typeof replayRun>[0],
): Promise<string[]> {
  const replay = replayRun(logged, { runId: threadId });
  if (replay.finished) return [];
  return (await treePending(serve.store, threadId, replay)).map((call) => call.id);
}

function decisionsFor(
  threadId: string,
  resume: readonly ResumeEntry[],
  waiting: readonly string[],
): Record<string, Decision> | Refusal {
  const decisions: Record<string, Decision> = {};
  for (const entry of resume) {
    if (!waiting.includes(entry.interruptId)) {
      const now = waiting.length === 0 ? "waits for no decision" : `waits for decisions on ${waiting.join(", ")} only`;
      return new Refusal(409, `thread '${threadId}' has no interrupt '${entry.interruptId}': it ${now}`);
    }
    if (Object.hasOwn(decisions, entry.interruptId))
      return new Refusal(409, `interrupt '${entry.interruptId}' is answered twice`);
    decisions[entry.interruptId] = decisionOf(entry);
  }
  const unanswered = waiting.filter((id) => !Object.hasOwn(decisions, id));
  if (unanswered.length > 0) {
    return new Refusal(409, `resume[] must answer every open interrupt; unanswered: ${unanswered.join(", ")}`);
  }
  return decisions;
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

function lastUserText(input: RunAgentInput): string | null {
  const last = input.messages.at(-1);
  if (last?.role !== "user") return null;
  const content: unknown = last.content;
  if (typeof content === "string") return content.trim() === "" ? null : content;
  if (!Array.isArray(content)) return null;
  const text = content
    .filter((part): part is { type: "text"; text: string } => part?.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
  return text.trim() === "" ? null : text;
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
