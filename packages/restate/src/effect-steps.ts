import type { ToolCall, ToolRegistry } from "@agentloop/core";
import {
  type Approver,
  type ApproverAnswer,
  askApprover,
  askModel,
  mayRunAgain,
  runTool,
} from "@agentloop/core/driver";
import { toolFinished } from "@agentloop/core/machine";
import { type RestatePromise, type RunOptions, TerminalError, type WorkflowContext } from "@restatedev/restate-sdk";
import type { KeyedRequest, ModelWithLimits, RunEvent, ToolLimits } from "./core-port.js";
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

/** An event as a journaled step produced it, with when it happened (ISO 8601), as journaled. */
export interface TimedEvent {
  readonly event: RunEvent;
  readonly at: string;
}

/** What a journaled step produced: events to log (the machine takes those it knows), and the step that follows, if any. */
export interface StepOutcome {
  readonly key: string;
  /** None when the step only decided what to await next (an approval policy that gave no decision). */
  readonly events: readonly TimedEvent[];
  readonly next?: () => PendingStep;
}

/** A journaled step the run waits for. */
export interface PendingStep {
  readonly key: string;
  /** The call, for a tool's steps: `status` lists it as running. */
  readonly running: ToolCall | null;
  /** The call, while its decision is left to `decide` (not while an approval policy decides). */
  readonly deciding?: ToolCall;
  readonly outcome: RestatePromise<StepOutcome>;
}

/**
 * Starts the journaled step that answers a request of the machine. A model call is one `ctx.run`
 * whose result is the reply. A call to a tool that may safely run again (idempotent, or invalid so
 * that it runs nothing) is one `ctx.run` whose result is the observation. Any other call is two:
 * `started` (the `tool.started` event), then `finished`, which runs the tool only if `started` was
 * journaled by this same execution attempt. If an earlier attempt journaled it, that attempt was
 * cut off (its process died, or Restate aborted it) after the tool may have started, so the model
 * gets the lost-result `ERROR:` instead of a second run. A decision is the approval policy's
 * (journaled), or else a durable promise that `decide` resolves.
 */
export function startStep(ctx: WorkflowContext, { request, key }: KeyedRequest, effects: Effects): PendingStep {
  switch (request.type) {
    case "callModel": {
      const replied = ctx.run(
        key,
        async () => {
          const answer = await askModel(effects.model, request, { signal: effects.signal });
          // A failed call is retried by Restate as its `modelRetry` says; past them, the run fails with it.
          if (answer.type === "model-failed") throw answer.error;
          return { reply: answer.event.reply, at: now() };
        },
        effects.modelRetry ?? {},
      );
      const outcome = replied.map((value, failure): StepOutcome => {
        const { reply, at } = settled(value, failure);
        return { key, events: [{ event: { type: "model.replied", reply }, at }] };
      });
      return { key, running: null, outcome };
    }
    case "runTool":
      return startTool(ctx, key, request.call, effects);
    case "requestDecision":
      return startDecision(ctx, key, request.call, effects);
    default:
      // A durable run takes no output schema or guardrails (its options have none), so the machine never asks.
      throw new TypeError(`a durable run cannot perform ${request.type}`);
  }
}

function startTool(ctx: WorkflowContext, key: string, call: ToolCall, effects: Effects): PendingStep {
  const started: RunEvent = { type: "tool.started", callId: call.id, name: call.name };
  const finished = (content: string): RunEvent => toolFinished(call.id, content);
  const run = async (interrupted = false) => {
    const { toolTimeoutMs, maxResultChars, signal } = effects;
    return (await runTool(effects.registry, call, { toolTimeoutMs, maxResultChars, signal, interrupted })).event
      .content;
  };
  // A call that may run again needs no journaled start: one step runs it and yields both events.
  if (mayRunAgain(effects.registry, call)) {
    const ran = ctx.run(key, async () => {
      const startedAt = now();
      return { startedAt, content: await run(), at: now() };
    });
    const outcome = ran.map((value, failure): StepOutcome => {
      const { startedAt, content, at } = settled(value, failure);
      return {
        key,
        events: [
          { event: started, at: startedAt },
          { event: finished(content), at },
        ],
      };
    });
    return { key, running: call, outcome };
  }
  let startedHere = false;
  const start = ctx.run(`${key} started`, () => {
    startedHere = true;
    return now();
  });
  const finish = (): PendingStep => {
    const ran = ctx.run(`${key} finished`, async () => ({
      content: await run(!startedHere),
      at: now(),
    }));
    const outcome = ran.map((value, failure): StepOutcome => {
      const { content, at } = settled(value, failure);
      return { key, events: [{ event: finished(content), at }] };
    });
    return { key, running: call, outcome };
  };
  const outcome = start.map(
    (at, failure): StepOutcome => ({
      key,
      events: [{ event: started, at: settled(at, failure) }],
      next: finish,
    }),
  );
  return { key, running: call, outcome };
}

function startDecision(ctx: WorkflowContext, key: string, call: ToolCall, effects: Effects): PendingStep {
  const wait = (): PendingStep => {
    const decided = ctx.promise<DecisionRecord>(key).get();
    return {
      key,
      running: null,
      deciding: call,
      outcome: decided.map((record, failure) => decisionOutcome(key, call, settled(record, failure))),
    };
  };
  const { approve } = effects;
  if (approve === undefined) return wait();
  const policy = ctx.run(`${key} policy`, async (): Promise<DecisionRecord | null> => {
    const answer = await checkedAnswer(approve, call);
    if (answer.type === "undecided") return null;
    const { approved, reason } = answer.decision;
    return reason === undefined ? { approved, at: now() } : { approved, reason, at: now() };
  });
  const outcome = policy.map((value, failure): StepOutcome => {
    const record = settled(value, failure);
    return record === null ? { key, events: [], next: wait } : decisionOutcome(key, call, record);
  });
  return { key, running: null, outcome };
}

/** Core's answer from the policy; a decision core refuses fails the run (retrying would not change it), logging nothing. */
async function checkedAnswer(approve: Approver, call: ToolCall): Promise<ApproverAnswer> {
  try {
    return await askApprover(approve, call);
  } catch (error) {
    if (error instanceof TypeError) throw new TerminalError(error.message);
    throw error;
  }
}

function decisionOutcome(key: string, call: ToolCall, { approved, reason, at }: DecisionRecord): StepOutcome {
  const event: RunEvent = { type: "approval.decided", callId: call.id, approved };
  return { key, events: [{ event: reason === undefined ? event : { ...event, reason }, at }] };
}

/** A mapped step's value, or its terminal failure thrown on (a model that failed past its retries). */
function settled<T>(value: T | undefined, failure: TerminalError | undefined): T {
  if (failure !== undefined) throw failure;
  return value as T;
}

function now(): string {
  return new Date().toISOString();
}
