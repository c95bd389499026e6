import type { Actor } from "xstate";
import type { agentMachine } from "./agent-machine.js";
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
  /** Where the run's events are logged, holding what was logged before when the run is resumed. */
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

/**
 * Drives a running `agentMachine` actor: performs what it emits (calls the model, asks for
 * decisions, runs tools) and answers with domain events. With a journal it logs each event before
 * the machine sees it, and first serves what the log already holds, so that a resumed run asks
 * nothing twice. A failure (the model's, as a `ModelError`, or the store's) goes to `fail`.
 * Returns the function that stops driving: it aborts the signal given to the model and the tools,
 * and late results are dropped.
 */
export function driveEffects(actor: AgentActor, ports: EffectPorts, fail: (error: unknown) => void): () => void {
  // Ends when the driving stops or the run's signal aborts: live work stops, and its late results
  // are dropped. Logged events are still served until the driving stops.
  const end = new RunEnd();
  const abort = () => end.end();
  ports.signal?.addEventListener("abort", abort, { once: true });
  if (ports.signal?.aborted) abort();
  let stopped = false;
  const effects: Effects = { ...ports, end };
  const settle = (work: Promise<void>) =>
    work.catch((error: unknown) => {
      const moot = stopped || (end.ended && !(error instanceof EventLogError));
      if (!moot) fail(error);
    });
  const deliver: Deliver = (event, logged) => {
    const isOpen = logged ? () => !stopped : () => !end.ended;
    const send = () => actor.send(event);
    if (!logged && ports.journal !== undefined) return ports.journal.commit(event, send, isOpen);
    if (!isOpen()) return Promise.resolve(false);
    send();
    return Promise.resolve(true);
  };
  const subscriptions = [
    actor.on("callModel", (request) => settle(replyTo(effects, request, deliver))),
    actor.on("runTool", (request) => settle(observe(effects, request.call, deliver))),
    actor.on("requestDecision", (request) => settle(decide(effects, request.call, deliver))),
  ];
  const stop = () => {
    if (stopped) return;
    stopped = true;
    for (const subscription of subscriptions) subscription.unsubscribe();
    ports.signal?.removeEventListener("abort", abort);
    end.end();
  };
  // The run's end stops the driving at once, inside the step that ended it: no late result is
  // logged after the end.
  subscriptions.push(actor.subscribe({ complete: stop, error: stop }));
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

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    // A shared reason: `abort()` without one builds a DOMException, stack and all.
    this.#controller?.abort(RUN_ENDED);
  }
}

/**
 * Hands an event to the machine: one already in the log (`logged`) directly, a new one through
 * the journal, which logs it first. Resolves to whether it was delivered (false once the run ended).
 */
type Deliver = (event: EffectEvent, logged: boolean) => Promise<boolean>;

async function replyTo(
  { model, journal, end }: Effects,
  request: Extract<EffectRequest, { type: "callModel" }>,
  deliver: Deliver,
): Promise<void> {
  if (journal?.replaying) {
    await deliver({ type: "model.replied", reply: journal.take("model.replied").reply }, true);
    return;
  }
  if (end.ended) return;
  const reply = await callModel(model, request, end);
  await deliver({ type: "model.replied", reply }, false);
}

async function callModel(
  model: Model,
  request: Extract<EffectRequest, { type: "callModel" }>,
  end: RunEnd,
): Promise<ModelReply> {
  const messages = messagesOf(request.transcript);
  const fail = (message: string, cause?: unknown) =>
    new ModelError(`model call ${request.step} failed: ${message}`, { messages, step: request.step, cause });
  let raw: unknown;
  try {
    raw = await model(messages, request.specs, {
      get signal() {
        return end.signal;
      },
    });
  } catch (error) {
    throw fail(describeThrown(error), error);
  }
  const reply = checkReply(raw);
  if (typeof reply === "string") throw fail(`the model returned an invalid reply: ${reply}`);
  return reply;
}

/** A decision for a call: logged before, or the approver's now; none leaves the run waiting. */
async function decide({ approve, journal, end }: Effects, call: ToolCall, deliver: Deliver): Promise<void> {
  if (journal?.replaying) {
    const { callId, approved, reason } = journal.take("approval.decided", call.id);
    await deliver(decisionEvent(callId, { approved, reason }), true);
    return;
  }
  if (end.ended) return;
  const decision = await approve?.(call);
  if (decision !== undefined) await deliver(decisionEvent(call.id, decision), false);
}

function decisionEvent(callId: string, { approved, reason }: Partial<Decision>): EffectEvent {
  const event = { type: "approval.decided", callId, approved: approved === true } as const;
  return reason === undefined ? event : { ...event, reason };
}

/** The observation for one call: logged before, re-derived after an interruption, or run now. */
async function observe(effects: Effects, call: ToolCall, deliver: Deliver): Promise<void> {
  const { registry, journal, end } = effects;
  const run = () =>
    registry.executeCall(call, {
      get signal() {
        return end.signal;
      },
      timeoutMs: effects.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      maxResultChars: effects.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
    });
  const finished = (content: string): EffectEvent => ({ type: "tool.finished", callId: call.id, content });
  if (journal?.replaying) {
    journal.take("tool.started", call.id);
    if (journal.replaying) {
      await deliver(finished(journal.take("tool.finished", call.id).content), true);
      return;
    }
    // The log ends inside this call: the process died while it ran, and its result was lost. Run
    // it again only if that is safe: it is idempotent, or it is invalid and so runs nothing.
    if (end.ended) return;
    const safe = registry.isIdempotent(call.name) || !registry.wouldRun(call);
    await deliver(finished(safe ? await run() : lostResult(call)), false);
    return;
  }
  if (end.ended) return;
  const started = await (journal?.commit(
    { type: "tool.started", callId: call.id, name: call.name },
    undefined,
    () => !end.ended,
  ) ?? true);
  if (!started || end.ended) return;
  await deliver(finished(await run()), false);
}

function lostResult(call: ToolCall): string {
  return (
    `ERROR: the result of ${call.name} was lost: the run was interrupted while it ran, so it may or may not ` +
    "have taken effect. Check its effect before you call it again."
  );
}
