import type { Actor } from "xstate";
import { type AgentSnapshot, type agentMachine, pendingRequests } from "./agent-machine.js";
import { claimCallIds, usedCallIds } from "./assign-call-ids.js";
import { copyReply } from "./check-reply.js";
import { DEFAULT_MAX_RESULT_CHARS } from "./cut-result.js";
import { describeThrown, ModelError } from "./errors.js";
import { EventLogError } from "./event-log-error.js";
import { type AgentEvent, type AgentRequest, toolFinished } from "./events.js";
import type { Journal } from "./journal.js";
import type { AgentStreamEvent } from "./stream-events.js";
import type { ToolRegistry } from "./tool-registry.js";
import { listView, messagesOf, type Transcript } from "./transcript.js";
import type { Decision, Model, ModelDelta, ModelReply, ToolCall } from "./types.js";

type CallModel = Extract<AgentRequest, { type: "callModel" }>;

/**
 * Decides on a call that needs approval. `undefined` (or `null`) means no decision now: the run
 * pauses with status `awaiting_approval` once nothing else is left to do, to be resumed with a
 * decision later.
 */
export type Approver = (call: ToolCall) => Decision | undefined | null | Promise<Decision | undefined | null>;

/** The ports the effects reach, and the limits they apply. */
export interface EffectPorts {
  readonly model: Model;
  readonly registry: ToolRegistry;
  /** Where the run's events are logged, after what was logged before when the run is resumed. */
  readonly journal?: Journal | undefined;
  /** Decides on calls to tools registered with `needsApproval`. */
  readonly approve?: Approver | undefined;
  /** Milliseconds a tool may take unless it sets its own `timeoutMs` (default 60,000). */
  readonly toolTimeoutMs?: number | undefined;
  /** Observations longer than this are cut unless the tool sets its own limit (default 8,000). */
  readonly maxResultChars?: number | undefined;
  /** The run's signal: once it aborts, nothing new is invoked and work in flight is aborted. */
  readonly signal?: AbortSignal | undefined;
  /** Hears the run's events as they happen (after they are logged), and the model's deltas as they stream. */
  readonly onEvent?: ((event: AgentStreamEvent) => void) | undefined;
}

const RUN_ENDED = new Error("the run ended or was cancelled");

/** Milliseconds a tool may take when neither the run nor the tool says. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** The actor of a running `agentMachine`, as its driver sees it. */
export type AgentActor = Actor<typeof agentMachine>;

/** Where a resumed run stands: the state its log replays to, and the calls the log shows started but not finished. */
export interface Resumption {
  readonly snapshot: AgentSnapshot;
  /** Ids of the calls whose `tool.started` is logged without their `tool.finished`: the process died while they ran. */
  readonly interrupted: ReadonlySet<string>;
}

/**
 * Drives an `agentMachine` actor: performs what it emits (calls the model, asks for decisions,
 * runs tools, several at once when the machine asks for several) and answers with domain events.
 * Call it before `actor.start()`, so that it hears the first requests. With a journal it logs each
 * event before the machine sees it. For an actor restored from `resume.snapshot`, the requests
 * that state already waits on (`pendingRequests`) are performed at once: start the actor in the
 * same tick. A failure (the model's, as a `ModelError`, the store's, a listener's) goes to `fail`.
 * Returns the function that stops driving: it aborts the signal given to the model and the tools,
 * and late results are dropped.
 */
export function driveEffects(
  actor: AgentActor,
  ports: EffectPorts,
  fail: (error: unknown) => void,
  resume?: Resumption,
): () => void {
  // Ends when the driving stops, the run ends or its signal aborts: live work stops, and its late
  // results are dropped.
  const end = new RunEnd();
  ports.signal?.addEventListener("abort", end.end, { once: true });
  if (ports.signal?.aborted) end.end();
  let stopped = false;
  const tell = (event: AgentStreamEvent) => {
    if (ports.onEvent === undefined) return;
    try {
      ports.onEvent(event);
    } catch (error) {
      if (!stopped) fail(error);
    }
  };
  const effects: Effects = { ...ports, end, tell, ids: null };
  const isOpen = () => !end.ended;
  // The listener hears of an event once it is logged and just before the machine takes it, so that
  // it hears of the requests the event leads to (a reply's tool calls) after the event itself.
  const deliver: Deliver = (event, told) => {
    const handOn = () => {
      if (told !== undefined) tell(told);
      actor.send(event);
    };
    if (ports.journal !== undefined) return ports.journal.commit(event, handOn, isOpen);
    if (end.ended) return Promise.resolve(false);
    handOn();
    return Promise.resolve(true);
  };
  const perform = (request: AgentRequest) => {
    const work =
      request.type === "callModel"
        ? replyTo(effects, request, deliver)
        : request.type === "runTool"
          ? observe(effects, request.call, deliver, resume?.interrupted.has(request.call.id) === true)
          : decide(effects, request.call, deliver);
    work.catch((error: unknown) => {
      const moot = stopped || (end.ended && !(error instanceof EventLogError));
      if (!moot) fail(error);
    });
  };
  const subscriptions = [
    actor.on("callModel", perform),
    actor.on("runTool", perform),
    actor.on("requestDecision", perform),
  ];
  const stop = () => {
    if (stopped) return;
    stopped = true;
    for (const subscription of subscriptions) subscription.unsubscribe();
    ports.signal?.removeEventListener("abort", end.end);
    end.end();
  };
  // The run's end stops the driving at once, inside the step that ended it: no late result is
  // logged after the end.
  subscriptions.push(actor.subscribe({ complete: stop, error: stop }));
  if (resume !== undefined) for (const request of pendingRequests(resume.snapshot)) perform(request);
  return stop;
}

/** The ports, with the end of the run as the effects see it, the listener, and the call ids the run has used. */
type Effects = EffectPorts & {
  readonly end: RunEnd;
  readonly tell: (event: AgentStreamEvent) => void;
  /** Made from the list at the first reply, then kept up to date: so a reply's ids cost O(calls). */
  ids: Set<string> | null;
};

/**
 * The end of a run (it ended, was stopped, or its signal aborted): a flag for the effects to check,
 * and a signal for the model and the tools, made only when one of them reads it. Most never do,
 * and an AbortController that is aborted at every run's end costs more than a step.
 */
class RunEnd {
  #ended = false;
  #controller: AbortController | undefined;

  get ended(): boolean {
    return this.#ended;
  }

  /** Aborts once the run ends. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#ended) this.#controller.abort(RUN_ENDED);
    }
    return this.#controller.signal;
  }

  readonly end = (): void => {
    if (this.#ended) return;
    this.#ended = true;
    // A shared reason: `abort()` without one builds a DOMException, stack and all.
    this.#controller?.abort(RUN_ENDED);
  };
}

/**
 * Hands a new event to the machine, through the journal (which logs it first) when there is one,
 * telling the listener `told` just before. Resolves to whether it was delivered (false once the run ended).
 */
type Deliver = (event: AgentEvent, told?: AgentStreamEvent) => Promise<boolean>;

async function replyTo(effects: Effects, request: CallModel, deliver: Deliver): Promise<void> {
  if (effects.end.ended) return;
  const { step } = request;
  effects.tell({ type: "step-started", step });
  const reply = withUniqueIds(effects, request.transcript, await callModel(effects, request));
  await deliver({ type: "model.replied", reply }, { type: "step-finished", step, reply });
}

async function callModel(effects: Effects, request: CallModel): Promise<ModelReply> {
  const { model, end, onEvent, tell } = effects;
  const { step } = request;
  const onDelta =
    onEvent === undefined
      ? undefined
      : (delta: ModelDelta) => {
          if (!end.ended) tell({ ...delta, step });
        };
  let raw: unknown;
  try {
    raw = await model(listView(request.transcript), request.specs, {
      get signal() {
        return end.signal;
      },
      ...(onDelta === undefined ? {} : { onDelta }),
    });
  } catch (error) {
    throw modelError(request, describeThrown(error), error);
  }
  const reply = copyReply(raw);
  if (typeof reply === "string") throw modelError(request, `the model returned an invalid reply: ${reply}`);
  return reply;
}

/**
 * The reply with every call id unique in the run: an empty, missing or repeated id (in the reply,
 * or used earlier in the conversation) becomes a positional one, so that a decision or a result
 * given for one call can never be taken for another. Most replies come back as they are.
 */
function withUniqueIds(effects: Effects, transcript: Transcript, reply: ModelReply): ModelReply {
  if (reply.toolCalls.length === 0) return reply;
  effects.ids ??= usedCallIds(messagesOf(transcript));
  const ids = claimCallIds(
    reply.toolCalls.map((call) => call.id),
    effects.ids,
    transcript.length,
  );
  if (reply.toolCalls.every((call, index) => call.id === ids[index])) return reply;
  const toolCalls = reply.toolCalls.map((call, index) => Object.freeze({ ...call, id: ids[index] as string }));
  return Object.freeze({ ...reply, toolCalls: Object.freeze(toolCalls) });
}

/**
 * The error of a failed model call, with the list the model was shown. Built only on failure, from
 * the transcript: a closure over the list itself would keep every step's view alive for as long as
 * the call's frame.
 */
function modelError(request: CallModel, message: string, cause?: unknown): ModelError {
  const { step } = request;
  return new ModelError(`model call ${step} failed: ${message}`, {
    messages: messagesOf(request.transcript),
    step,
    cause,
  });
}

/** A decision for a call, the approver's; none (`undefined` or `null`) leaves the call waiting. */
async function decide({ approve, end, tell }: Effects, call: ToolCall, deliver: Deliver): Promise<void> {
  if (end.ended) return;
  tell({ type: "decision-requested", call });
  const decision = await approve?.(call);
  if (decision === undefined || decision === null) return;
  const event = decisionEvent(call, decision);
  await deliver(event, { type: "decision-given", call, decision: decisionOf(event) });
}

/** The logged form of an approver's decision; anything but a `Decision` is refused, so that no log holds what its reader refuses. */
function decisionEvent(call: ToolCall, decision: unknown): Extract<AgentEvent, { type: "approval.decided" }> {
  const { approved, reason } = (typeof decision === "object" ? decision : {}) as Record<string, unknown>;
  if (typeof approved !== "boolean" || !(reason === undefined || typeof reason === "string")) {
    throw new TypeError(
      `the approver's decision on call '${call.id}' must be { approved: boolean, reason?: string }; got ${JSON.stringify(decision) ?? String(decision)}`,
    );
  }
  const event = { type: "approval.decided", callId: call.id, approved } as const;
  return reason === undefined ? event : { ...event, reason };
}

function decisionOf({ approved, reason }: Extract<AgentEvent, { type: "approval.decided" }>): Decision {
  return reason === undefined ? { approved } : { approved, reason };
}

/**
 * The observation for one call, run now. An `interrupted` call (the log ends inside its run: the
 * process died while it ran, and its result was lost) runs again only if that is safe: it is
 * idempotent, or it is invalid and so runs nothing; otherwise the model is told its result was lost.
 */
async function observe(effects: Effects, call: ToolCall, deliver: Deliver, interrupted: boolean): Promise<void> {
  const { registry, journal, end, tell } = effects;
  if (end.ended) return;
  let content: string;
  if (interrupted) {
    content = mayRunAgain(registry, call) ? await execute(effects, call) : lostResult(call);
  } else {
    if (journal !== undefined) {
      const started = await journal.commit(
        { type: "tool.started", callId: call.id, name: call.name },
        undefined,
        () => !end.ended,
      );
      if (!started || end.ended) return;
    }
    tell({ type: "tool-started", call });
    content = await execute(effects, call);
  }
  const finished = toolFinished(call.id, content);
  await deliver(finished, { type: "tool-finished", call, content, isError: finished.isError === true });
}

function execute({ registry, end, toolTimeoutMs, maxResultChars }: Effects, call: ToolCall): Promise<string> {
  return registry.executeCall(call, {
    get signal() {
      return end.signal;
    },
    timeoutMs: toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    maxResultChars: maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
  });
}

/** Whether a call whose run was cut off may run again: its tool is idempotent, or the call is invalid and runs nothing. */
export function mayRunAgain(registry: ToolRegistry, call: ToolCall): boolean {
  return registry.isIdempotent(call.name) || !registry.wouldRun(call);
}

/** What the model is told of a call whose run was cut off and that may not run again. */
export function lostResult(call: ToolCall): string {
  return (
    `ERROR: the result of ${call.name} was lost: the run was interrupted while it ran, so it may or may not ` +
    "have taken effect. Check its effect before you call it again."
  );
}
