import type { Actor } from "xstate";
import { type AgentSnapshot, type agentMachine, pendingRequest } from "./agent-machine.js";
import { checkReply } from "./check-reply.js";
import { DEFAULT_MAX_RESULT_CHARS } from "./cut-result.js";
import { describeThrown, EventLogError, ModelError } from "./errors.js";
import type { Journal } from "./journal.js";
import type { ToolRegistry } from "./tool-registry.js";
import { messagesOf, type Transcript } from "./transcript.js";
import type { Decision, Model, ModelReply, ToolCall, ToolSpec } from "./types.js";

/** What the machine asks of its driver: it emits these. */
export type EffectRequest =
  | {
      readonly type: "callModel";
      /** The list so far; the effects copy it only when they really call the model. */
      readonly transcript: Transcript;
      readonly specs: readonly ToolSpec[];
      readonly step: number;
    }
  | { readonly type: "runTool"; readonly call: ToolCall }
  | { readonly type: "requestDecision"; readonly call: ToolCall };

/** The domain events of a run: the machine's only inputs besides its start. */
export type EffectEvent =
  | { readonly type: "model.replied"; readonly reply: ModelReply }
  | { readonly type: "tool.finished"; readonly callId: string; readonly content: string }
  | { readonly type: "approval.decided"; readonly callId: string; readonly approved: boolean; readonly reason?: string }
  | { readonly type: "run.cancelled"; readonly reason?: string };

/**
 * Decides on a call that needs approval. `undefined` means no decision now: the run pauses with
 * status `awaiting_approval`, to be resumed with a decision later.
 */
export type Approver = (call: ToolCall) => Decision | undefined | Promise<Decision | undefined>;

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
}

const RUN_ENDED = new Error("the run ended or was cancelled");

/** Milliseconds a tool may take when neither the run nor the tool says. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** The actor of a running `agentMachine`, as its driver sees it. */
export type AgentActor = Actor<typeof agentMachine>;

/** Where a resumed run stands: the state its log replays to, and whether the log ends inside a tool's run. */
export interface Resumption {
  readonly snapshot: AgentSnapshot;
  /** The log holds the running call's `tool.started` but not its `tool.finished`: the process died while it ran. */
  readonly interrupted: boolean;
}

/**
 * Drives an `agentMachine` actor: performs what it emits (calls the model, asks for decisions,
 * runs tools) and answers with domain events. Call it before `actor.start()`, so that it hears the
 * first request. With a journal it logs each event before the machine sees it. For an actor
 * restored from `resume.snapshot`, the request that state already waits on (`pendingRequest`) is
 * performed at once: start the actor in the same tick. A failure (the model's, as a `ModelError`,
 * or the store's) goes to `fail`. Returns the function that stops driving: it aborts the signal
 * given to the model and the tools, and late results are dropped.
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
  const effects: Effects = { ...ports, end };
  const isOpen = () => !end.ended;
  const deliver: Deliver = (event) => {
    if (ports.journal !== undefined) return ports.journal.commit(event, () => actor.send(event), isOpen);
    if (end.ended) return Promise.resolve(false);
    actor.send(event);
    return Promise.resolve(true);
  };
  const perform = (request: EffectRequest, interrupted = false) => {
    const work =
      request.type === "callModel"
        ? replyTo(effects, request, deliver)
        : request.type === "runTool"
          ? observe(effects, request.call, deliver, interrupted)
          : decide(effects, request.call, deliver);
    work.catch((error: unknown) => {
      const moot = stopped || (end.ended && !(error instanceof EventLogError));
      if (!moot) fail(error);
    });
  };
  const subscriptions = [
    actor.on("callModel", (request) => perform(request)),
    actor.on("runTool", (request) => perform(request)),
    actor.on("requestDecision", (request) => perform(request)),
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
  const pending = resume === undefined ? null : pendingRequest(resume.snapshot);
  if (pending !== null) perform(pending, resume?.interrupted);
  return stop;
}

/** The ports, with the end of the run as the effects see it. */
type Effects = EffectPorts & { readonly end: RunEnd };

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

/** Hands a new event to the machine, through the journal (which logs it first) when there is one. Resolves to whether it was delivered (false once the run ended). */
type Deliver = (event: EffectEvent) => Promise<boolean>;

async function replyTo(
  { model, end }: Effects,
  request: Extract<EffectRequest, { type: "callModel" }>,
  deliver: Deliver,
): Promise<void> {
  if (end.ended) return;
  const reply = await callModel(model, request, end);
  await deliver({ type: "model.replied", reply });
}

async function callModel(
  model: Model,
  request: Extract<EffectRequest, { type: "callModel" }>,
  end: RunEnd,
): Promise<ModelReply> {
  let raw: unknown;
  try {
    raw = await model(messagesOf(request.transcript), request.specs, {
      get signal() {
        return end.signal;
      },
    });
  } catch (error) {
    throw modelError(request, describeThrown(error), error);
  }
  const reply = checkReply(raw);
  if (typeof reply === "string") throw modelError(request, `the model returned an invalid reply: ${reply}`);
  return reply;
}

/**
 * The error of a failed model call, with the list the model was shown. Built only on failure, from
 * the transcript: a closure over the list itself would keep every step's copy alive for as long as
 * the call's frame, which at 1,000 steps made the collector copy about 8 KB more per step.
 */
function modelError(
  request: Extract<EffectRequest, { type: "callModel" }>,
  message: string,
  cause?: unknown,
): ModelError {
  const { step } = request;
  return new ModelError(`model call ${step} failed: ${message}`, {
    messages: messagesOf(request.transcript),
    step,
    cause,
  });
}

/** A decision for a call, the approver's; none leaves the run waiting. */
async function decide({ approve, end }: Effects, call: ToolCall, deliver: Deliver): Promise<void> {
  if (end.ended) return;
  const decision = await approve?.(call);
  if (decision !== undefined) await deliver(decisionEvent(call.id, decision));
}

function decisionEvent(callId: string, { approved, reason }: Partial<Decision>): EffectEvent {
  const event = { type: "approval.decided", callId, approved: approved === true } as const;
  return reason === undefined ? event : { ...event, reason };
}

/**
 * The observation for one call, run now. An `interrupted` call (the log ends inside its run: the
 * process died while it ran, and its result was lost) runs again only if that is safe: it is
 * idempotent, or it is invalid and so runs nothing; otherwise the model is told its result was lost.
 */
async function observe(effects: Effects, call: ToolCall, deliver: Deliver, interrupted: boolean): Promise<void> {
  const { registry, journal, end } = effects;
  if (end.ended) return;
  let content: string;
  if (interrupted) {
    const safe = registry.isIdempotent(call.name) || !registry.wouldRun(call);
    content = safe ? await execute(effects, call) : lostResult(call);
  } else {
    if (journal !== undefined) {
      const started = await journal.commit(
        { type: "tool.started", callId: call.id, name: call.name },
        undefined,
        () => !end.ended,
      );
      if (!started || end.ended) return;
    }
    content = await execute(effects, call);
  }
  await deliver({ type: "tool.finished", callId: call.id, content });
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

function lostResult(call: ToolCall): string {
  return (
    `ERROR: the result of ${call.name} was lost: the run was interrupted while it ran, so it may or may not ` +
    "have taken effect. Check its effect before you call it again."
  );
}
