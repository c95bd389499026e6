import type { Approver, ModelWithLimits, RunEvent, ToolCall, ToolRegistry } from "@agentloop/core";
import type { RestatePromise, RunOptions, TerminalError, WorkflowContext } from "@restatedev/restate-sdk";
import { callModel, type KeyedRequest, lostResult, mayRunAgain, runTool, type ToolLimits } from "./core-port.js";
import type { DecisionRecord } from "./types.js";

/** Restate's retry options for a `ctx.run` (a model call's, here). */
export type StepRetry = Omit<RunOptions<unknown>, "serde">;

/** What the journaled steps reach: the model, the tools, the approval policy, and the run's signal. */
export interface Effects extends ToolLimits {
  readonly model: ModelWithLimits;
  readonly registry: ToolRegistry;
  readonly approve?: Approver | undefined;
  readonly modelRetry?: StepRetry | undefined;
  /** Aborts when the run ends or this execution attempt does: the model and the tools stop. */
  readonly signal: AbortSignal;
}

/** What a journaled step produced: an event to log (and to hand the machine), and the step that follows it, if any. */
export interface StepOutcome {
  readonly key: string;
  /** `null` when the step only decided what to await next (an approval policy that gave no decision). */
  readonly event: RunEvent | null;
  /** When it happened (ISO 8601), as journaled. */
  readonly at: string;
  readonly next?: () => PendingStep;
}

/** A journaled step the run waits for. */
export interface PendingStep {
  readonly key: string;
  /** The call, for a tool's steps: `status` lists it as running. */
  readonly running: ToolCall | null;
  readonly outcome: RestatePromise<StepOutcome>;
}

/**
 * Starts the journaled step that answers a request of the machine. A model call is one `ctx.run`
 * whose result is the reply. A tool run is two: `started` (the `tool.started` event) and
 * `finished`, whose result is the observation; the second runs the tool only if the first was
 * journaled by this same execution attempt. If an earlier attempt journaled it, that attempt was
 * cut off (its process died, or Restate aborted it) after the tool may have started, so the tool
 * runs again only if that is safe, and otherwise the model gets the lost-result `ERROR:`. A
 * decision is the approval policy's (journaled), or else a durable promise that `decide` resolves.
 */
export function startStep(ctx: WorkflowContext, { request, key }: KeyedRequest, effects: Effects): PendingStep {
  switch (request.type) {
    case "callModel": {
      const replied = ctx.run(
        key,
        async () => ({ reply: await callModel(effects.model, request, effects.signal), at: now() }),
        effects.modelRetry ?? {},
      );
      const outcome = replied.map((value, failure) => {
        const { reply, at } = settled(value, failure);
        return { key, event: { type: "model.replied", reply }, at } satisfies StepOutcome;
      });
      return { key, running: null, outcome };
    }
    case "runTool":
      return startTool(ctx, key, request.call, effects);
    case "requestDecision":
      return startDecision(ctx, key, request.call, effects);
  }
}

function startTool(ctx: WorkflowContext, key: string, call: ToolCall, effects: Effects): PendingStep {
  let startedHere = false;
  const started = ctx.run(`${key} started`, () => {
    startedHere = true;
    return now();
  });
  const finish = (): PendingStep => {
    const finished = ctx.run(`${key} finished`, async () => {
      const runs = startedHere || mayRunAgain(effects.registry, call);
      const content = runs ? await runTool(effects.registry, call, effects, effects.signal) : lostResult(call);
      return { content, at: now() };
    });
    const outcome = finished.map((value, failure) => {
      const { content, at } = settled(value, failure);
      return { key, event: { type: "tool.finished", callId: call.id, content }, at } satisfies StepOutcome;
    });
    return { key, running: call, outcome };
  };
  const outcome = started.map((at, failure): StepOutcome => {
    const event: RunEvent = { type: "tool.started", callId: call.id, name: call.name };
    return { key, event, at: settled(at, failure), next: finish };
  });
  return { key, running: call, outcome };
}

function startDecision(ctx: WorkflowContext, key: string, call: ToolCall, effects: Effects): PendingStep {
  const wait = (): PendingStep => {
    const decided = ctx.promise<DecisionRecord>(key).get();
    return {
      key,
      running: null,
      outcome: decided.map((record, failure) => decisionOutcome(key, call, settled(record, failure))),
    };
  };
  const { approve } = effects;
  if (approve === undefined) return wait();
  const policy = ctx.run(`${key} policy`, async (): Promise<DecisionRecord | null> => {
    const decision = await approve(call);
    if (decision === undefined) return null;
    const record = { approved: decision.approved === true, at: now() };
    return decision.reason === undefined ? record : { ...record, reason: decision.reason };
  });
  const outcome = policy.map((value, failure): StepOutcome => {
    const record = settled(value, failure);
    return record === null ? { key, event: null, at: "", next: wait } : decisionOutcome(key, call, record);
  });
  return { key, running: null, outcome };
}

function decisionOutcome(key: string, call: ToolCall, { approved, reason, at }: DecisionRecord): StepOutcome {
  const event: RunEvent = { type: "approval.decided", callId: call.id, approved };
  return { key, event: reason === undefined ? event : { ...event, reason }, at };
}

/** A mapped step's value, or its terminal failure thrown on (a model that failed past its retries). */
function settled<T>(value: T | undefined, failure: TerminalError | undefined): T {
  if (failure !== undefined) throw failure;
  return value as T;
}

function now(): string {
  return new Date().toISOString();
}
