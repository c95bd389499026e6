import type {
  AgentEvent,
  AgentRequest,
  Message,
  Model,
  ModelCallOptions,
  ModelDelta,
  ModelFailed,
  ModelReply,
} from "../../data/index.js";
import {
  agentMessages,
  claimCallIds,
  copyReply,
  describeThrown,
  failureOf,
  listView,
  ModelError,
  messagesOf,
  type Transcript,
  usedCallIds,
  viewMessages,
} from "../../data/index.js";
import type { EventAnswer } from "./event-answer.js";

/** A machine's request for a model reply. */
export type ModelRequest = Extract<AgentRequest, { type: "callModel" }>;

/**
 * What asking the model came to: its reply, or its failure as `model.failed` (naming the model the
 * request asked) with the `ModelError` the run rejects with when the failure is not retried.
 */
export type ModelAnswer = EventAnswer<ModelReplied> | ModelFailure;

/** A failed model call: its event, and the error. */
export type ModelFailure = EventAnswer<ModelFailed> & { readonly error: ModelError };

/** The event that answers a `callModel` request. */
export type ModelReplied = Extract<AgentEvent, { type: "model.replied" }>;

/** How the model is asked: its signal, where its deltas go, and the call ids the run has used. */
export interface AskModelOptions {
  /** Read only when the model reads its own signal (a getter keeps it lazy). */
  readonly signal?: AbortSignal | undefined;
  readonly onDelta?: ((delta: ModelDelta) => void) | undefined;
  /** The answer's JSON Schema, when the turn asks for a typed answer: the adapter asks the provider for it. */
  readonly output?: { readonly schema: Readonly<Record<string, unknown>> } | undefined;
  /** The call ids used in the run so far, extended with the reply's; read only for a reply with calls, made from the list when absent. */
  readonly usedIds?: (() => Set<string>) | undefined;
  /** Tells the model that the run retries failed calls itself, so that it need not (`ModelCallOptions.harnessRetries`). */
  readonly harnessRetries?: boolean | undefined;
}

/**
 * Asks the model for the reply a `callModel` request waits for: the model is shown a read-only view
 * of the list (or of what a compaction left of it), its reply is read once into a checked, frozen copy, and any call id that is empty or
 * used before in the run becomes a positional one. Never rejects: a model that throws or returns
 * something that is not a reply is a `model.failed` answer with a `ModelError` naming the step.
 */
export async function askModel(
  model: Model,
  request: ModelRequest,
  options: AskModelOptions = {},
): Promise<ModelAnswer> {
  let raw: unknown;
  try {
    const { onDelta, output } = options;
    const { view } = request;
    const shown =
      shownTo(request) ?? (view === undefined ? listView(request.transcript) : viewMessages(request.transcript, view));
    const { prepared } = request;
    const messages = prepared?.system === undefined ? shown : withSystem(shown, prepared.system);
    // Set one by one, in this order, only when given: spreads of empty objects made each call dearer.
    const callOptions: Mutable<ModelCallOptions> = {
      get signal() {
        return options.signal ?? neverAborted();
      },
    };
    if (onDelta !== undefined) callOptions.onDelta = onDelta;
    if (options.harnessRetries === true) callOptions.harnessRetries = true;
    if (output !== undefined) callOptions.output = output;
    if (prepared?.toolChoice !== undefined) callOptions.toolChoice = prepared.toolChoice;
    raw = await model(messages, request.specs, callOptions);
  } catch (error) {
    return failed(request, describeThrown(error, { byClass: true }), error, failureOf(error));
  }
  const reply = copyReply(raw);
  if (typeof reply === "string") return failed(request, `the model returned an invalid reply: ${reply}`);
  const unique = withUniqueIds(reply, request.transcript, options.usedIds);
  return { type: "event", event: { type: "model.replied", reply: unique } };
}

/** What the agent answering after a handoff is shown, or undefined when it is shown the list (or what a compaction left). */
function shownTo(request: ModelRequest): readonly Message[] | undefined {
  const shown = request.agent?.shown;
  return shown == null ? undefined : agentMessages(request.transcript, shown);
}

/** The list as one call shows it: `prepareStep`'s text added to the system message (the list itself keeps it as it was). */
function withSystem(messages: readonly Message[], system: string): readonly Message[] {
  const [first, ...rest] = messages;
  if (first?.role !== "system") return [{ role: "system", content: system }, ...messages];
  return [{ role: "system", content: first.content === "" ? system : `${first.content}\n\n${system}` }, ...rest];
}

function neverAborted(): AbortSignal {
  return new AbortController().signal;
}

/**
 * The reply with every call id unique in the run: an empty, missing or repeated id (in the reply,
 * or used earlier in the conversation) becomes a positional one, so that a decision or a result
 * given for one call can never be taken for another. Most replies come back as they are.
 */
function withUniqueIds(reply: ModelReply, transcript: Transcript, usedIds?: () => Set<string>): ModelReply {
  if (reply.toolCalls.length === 0) return reply;
  const used = usedIds === undefined ? usedCallIds(messagesOf(transcript)) : usedIds();
  const ids = claimCallIds(
    reply.toolCalls.map((call) => call.id),
    used,
    transcript.length,
  );
  if (reply.toolCalls.every((call, index) => call.id === ids[index])) return reply;
  const toolCalls = reply.toolCalls.map((call, index) => Object.freeze({ ...call, id: ids[index] as string }));
  return Object.freeze({ ...reply, toolCalls: Object.freeze(toolCalls) });
}

/**
 * The failure of a model call, with the list the model was shown. Built only on failure, from the
 * transcript: a closure over the list itself would keep every step's view alive for as long as
 * the call's frame.
 */
function failed(
  request: ModelRequest,
  message: string,
  cause?: unknown,
  failure: { retryable: boolean; retryAfterMs?: number } = { retryable: false },
): ModelFailure {
  const { step } = request;
  const error = new ModelError(`model call ${step} failed: ${message}`, {
    messages:
      shownTo(request) ??
      (request.view === undefined ? messagesOf(request.transcript) : viewMessages(request.transcript, request.view)),
    step,
    cause,
    ...failure,
  });
  const event: ModelFailed = {
    type: "model.failed",
    error: error.message,
    retryable: error.retryable,
    ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
    model: request.model ?? 0,
  };
  return { type: "event", event, error };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
