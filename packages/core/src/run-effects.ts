import { fromCallback } from "xstate";
import { checkReply } from "./check-reply.js";
import { DEFAULT_MAX_RESULT_CHARS } from "./cut-result.js";
import { describeThrown, EventLogError, ModelError } from "./errors.js";
import type { Journal } from "./journal.js";
import type { ToolRegistry } from "./tool-registry.js";
import { messagesOf, type Transcript } from "./transcript.js";
import type { Decision, Model, ModelReply, ToolCall, ToolSpec } from "./types.js";

/** What the machine asks of the effects actor. */
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

/** How the effects actor fails itself (see `runEffects`). */
export type EffectFailure = { readonly type: "effects.failed"; readonly error: unknown };

const RUN_ENDED = new Error("the run ended or was cancelled");

/** Milliseconds a tool may take when neither the run nor the tool says. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/**
 * The one actor that performs the machine's effects: it calls the model, asks for decisions and
 * runs tools when asked, and answers with domain events. With a journal it logs each event before
 * the machine sees it, and first serves what the log already holds, so that a resumed run asks
 * nothing twice. A failure (the model's, as a `ModelError`, or the store's) fails this actor, which
 * fails the machine; stopping it aborts the signal given to the model and the tools.
 */
export const runEffects = fromCallback<EffectRequest | EffectFailure, EffectPorts | null, EffectEvent>(
  ({ input, receive, sendBack, self }) => {
    if (input === null) throw new TypeError("agentMachine needs a model and a registry in its input to run");
    // Aborted when the actor stops or the run's signal aborts: live work stops, and its late
    // results are dropped. Logged events are still served until the actor stops.
    const controller = new AbortController();
    // A shared reason: `abort()` without one builds a DOMException, stack and all, for every run.
    const abort = () => controller.abort(RUN_ENDED);
    input.signal?.addEventListener("abort", abort, { once: true });
    if (input.signal?.aborted) abort();
    let stopped = false;
    const effects: Effects = { ...input, signal: controller.signal };
    const settle = (work: Promise<void>) =>
      work.catch((error: unknown) => {
        const moot = stopped || (controller.signal.aborted && !(error instanceof EventLogError));
        if (!moot) self.send({ type: "effects.failed", error });
      });
    const deliver: Deliver = (event, logged) => {
      const isOpen = logged ? () => !stopped : () => !controller.signal.aborted;
      const send = () => sendBack(event);
      if (!logged && input.journal !== undefined) return input.journal.commit(event, send, isOpen);
      if (!isOpen()) return Promise.resolve(false);
      send();
      return Promise.resolve(true);
    };
    receive((request) => {
      switch (request.type) {
        case "callModel":
          settle(replyTo(effects, request, deliver));
          return;
        case "runTool":
          settle(observe(effects, request.call, deliver));
          return;
        case "requestDecision":
          settle(decide(effects, request.call, deliver));
          return;
        case "effects.failed":
          // Throwing from the actor's own transition is how XState fails it and tells the parent.
          throw request.error;
      }
    });
    return () => {
      stopped = true;
      input.signal?.removeEventListener("abort", abort);
      abort();
    };
  },
);

/** The ports, with the signal that aborts when the actor stops (the run ended or was stopped). */
type Effects = EffectPorts & { readonly signal: AbortSignal };

/**
 * Hands an event to the machine: one already in the log (`logged`) directly, a new one through
 * the journal, which logs it first. Resolves to whether it was delivered (false once the run ended).
 */
type Deliver = (event: EffectEvent, logged: boolean) => Promise<boolean>;

async function replyTo(
  { model, journal, signal }: Effects,
  request: Extract<EffectRequest, { type: "callModel" }>,
  deliver: Deliver,
): Promise<void> {
  if (journal?.replaying) {
    await deliver({ type: "model.replied", reply: journal.take("model.replied").reply }, true);
    return;
  }
  if (signal.aborted) return;
  const reply = await callModel(model, request, signal);
  await deliver({ type: "model.replied", reply }, false);
}

async function callModel(
  model: Model,
  request: Extract<EffectRequest, { type: "callModel" }>,
  signal: AbortSignal,
): Promise<ModelReply> {
  const messages = messagesOf(request.transcript);
  const fail = (message: string, cause?: unknown) =>
    new ModelError(`model call ${request.step} failed: ${message}`, { messages, step: request.step, cause });
  let raw: unknown;
  try {
    raw = await model(messages, request.specs, { signal });
  } catch (error) {
    throw fail(describeThrown(error), error);
  }
  const reply = checkReply(raw);
  if (typeof reply === "string") throw fail(`the model returned an invalid reply: ${reply}`);
  return reply;
}

/** A decision for a call: logged before, or the approver's now; none leaves the run waiting. */
async function decide({ approve, journal, signal }: Effects, call: ToolCall, deliver: Deliver): Promise<void> {
  if (journal?.replaying) {
    const { callId, approved, reason } = journal.take("approval.decided", call.id);
    await deliver(decisionEvent(callId, { approved, reason }), true);
    return;
  }
  if (signal.aborted) return;
  const decision = await approve?.(call);
  if (decision !== undefined) await deliver(decisionEvent(call.id, decision), false);
}

function decisionEvent(callId: string, { approved, reason }: Partial<Decision>): EffectEvent {
  const event = { type: "approval.decided", callId, approved: approved === true } as const;
  return reason === undefined ? event : { ...event, reason };
}

/** The observation for one call: logged before, re-derived after an interruption, or run now. */
async function observe(effects: Effects, call: ToolCall, deliver: Deliver): Promise<void> {
  const { registry, journal, signal } = effects;
  const run = () =>
    registry.executeCall(call, {
      signal,
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
    if (signal.aborted) return;
    const safe = registry.isIdempotent(call.name) || !registry.wouldRun(call);
    await deliver(finished(safe ? await run() : lostResult(call)), false);
    return;
  }
  if (signal.aborted) return;
  const started = await (journal?.commit(
    { type: "tool.started", callId: call.id, name: call.name },
    undefined,
    () => !signal.aborted,
  ) ?? true);
  if (!started || signal.aborted) return;
  await deliver(finished(await run()), false);
}

function lostResult(call: ToolCall): string {
  return (
    `ERROR: the result of ${call.name} was lost: the run was interrupted while it ran, so it may or may not ` +
    "have taken effect. Check its effect before you call it again."
  );
}

/**
 * An effects actor that performs nothing: the machine with it makes the same pure decisions from the
 * events it is fed, and calls nothing. Replay uses it; so can tests and tools that drive the machine.
 */
export const noEffects = fromCallback<EffectRequest | EffectFailure, EffectPorts | null, EffectEvent>(() => {});
