import type { Approver, ToolCall, ToolRegistry } from "@agentloop/core";
import { type LoopAnswer, mayRunAgain, type Performing } from "@agentloop/core/driver";
import {
  CancelledError,
  RestatePromise,
  type RunOptions,
  TerminalError,
  type WorkflowContext,
} from "@restatedev/restate-sdk";
import type { AgentRequest, KeyedMachine, RunEvent } from "./core-port.js";
import type { RunLog } from "./run-log.js";
import { statusOf } from "./run-status.js";
import type { CancelRecord, DecisionRecord } from "./types.js";

/** The name of the durable promise that `cancel` resolves. */
export const CANCEL_PROMISE = "cancel";

/** Restate's retry options for a `ctx.run` (a model call's, here). */
export type StepRetry = Omit<RunOptions<unknown>, "serde">;

/** What the journaled steps reach besides the performers: the tools (to tell which may run again), the approval policy, the model's retries. */
export interface StepPorts {
  readonly registry: ToolRegistry;
  readonly approve?: Approver | undefined;
  readonly modelRetry?: StepRetry | undefined;
}

/** A journaled step the run waits for; `status` lists its call as running, or as waiting for `decide`. */
export interface PendingStep {
  readonly key: string;
  readonly running: ToolCall | null;
  readonly deciding?: ToolCall;
  readonly outcome: RestatePromise<Taken>;
}

/** What a journaled step came to: the loop's answer (none while a decision is still to wait for), stamped as journaled. */
interface Taken {
  readonly key: string;
  readonly answer: LoopAnswer | null;
  readonly at: string;
  /** When a tool that may run again started (its start is logged with its end). */
  readonly startedAt?: string;
  readonly next?: () => PendingStep;
}

/**
 * Core's run loop, performed on Restate: each performance is a journaled step named by the
 * request (`model 3`, `tool 2.0 c1`, `decision 2.1 c2`), and the loop takes the answers through one
 * `RestatePromise.race` over the outstanding steps and the cancellation, which a retried
 * execution replays in the order the journal recorded, so the machine gets the same events in the
 * same order and asks for the same steps. It is also the loop's log writer: each event is logged
 * with the time journaled where it happened. A call that may not run again has its start
 * journaled first (`started`); when an earlier attempt journaled it, the call is `interrupted`
 * and the loop gets the lost result instead of a second run.
 */
export class JournaledSteps implements Performing {
  readonly #ctx: WorkflowContext;
  readonly #machine: KeyedMachine;
  readonly #log: RunLog;
  readonly #ports: StepPorts;
  readonly #pending = new Map<string, PendingStep>();
  readonly #queued: LoopAnswer[] = [];
  readonly #cancelled: RestatePromise<Taken>;
  /** Calls whose start an earlier attempt journaled: the loop runs them as interrupted. */
  readonly interrupted = new Set<string>();
  /** Starts of calls that may run again, logged with their end. */
  readonly #deferred = new Map<string, RunEvent>();
  #wake: (() => void) | null = null;
  #taken: Taken | null = null;

  constructor(ctx: WorkflowContext, machine: KeyedMachine, log: RunLog, ports: StepPorts) {
    this.#ctx = ctx;
    this.#machine = machine;
    this.#log = log;
    this.#ports = ports;
    this.#cancelled = ctx
      .promise<CancelRecord>(CANCEL_PROMISE)
      .get()
      .map((record, failure) => cancelledAnswer(settled(record, failure)));
  }

  /** When the last answer taken happened, as journaled: the run ends then. */
  get lastAt(): string {
    return this.#taken?.at ?? "";
  }

  get idle(): boolean {
    return this.#pending.size === 0 && this.#queued.length === 0;
  }

  perform(request: AgentRequest, work: () => Promise<LoopAnswer>): void {
    if (request.type === "waitRetry") {
      // Restate retries a model call itself (`modelRetry`), durably; the harness's own retries are not taken here.
      throw new TypeError("retry and fallbackModels are not used on Restate: give modelRetry instead");
    }
    if (request.type === "checkOutput" || request.type === "checkGuardrail") {
      // A durable run takes neither an output schema nor guardrails, so its machine never asks for them.
      throw new TypeError(`${request.type} is not taken on Restate: a durable run has no output or guardrails`);
    }
    const key = this.#machine.keyOf(request);
    const step =
      request.type === "callModel"
        ? this.#model(key, request.step, work)
        : request.type === "compactContext"
          ? this.#compaction(key, work)
          : request.type === "runTool"
            ? this.#tool(key, request.call, work)
            : this.#decision(key, request.call, work);
    this.#pending.set(key, step);
  }

  push(answer: LoopAnswer): void {
    this.#queued.push(answer);
    this.#wake?.();
  }

  async next(): Promise<LoopAnswer> {
    for (;;) {
      const queued = this.#queued.shift();
      if (queued !== undefined) return queued;
      if (this.#log.statusDue || this.#deciding()) {
        const position = this.#machine.position();
        const status = statusOf(this.#ctx.key, position, this.#pending.values(), this.#log.length);
        this.#log.setStatus(status, position.decisionKeys, status.awaitingDecision.length > 0);
      }
      const taken = await this.#race();
      if (taken === null) continue;
      this.#pending.delete(taken.key);
      if (taken.next !== undefined) this.#pending.set(taken.key, taken.next());
      if (taken.answer === null) continue;
      this.#taken = taken;
      return taken.answer;
    }
  }

  /** Whether a step waits for `decide`: the status then lists its call (only then does the phase change mid-run). */
  #deciding(): boolean {
    for (const step of this.#pending.values()) if (step.deciding !== undefined) return true;
    return false;
  }

  /** Logs `event` (the loop's only way to the log), with the time journaled for the answer it came with. */
  async commit(event: RunEvent): Promise<boolean> {
    if (event.type === "tool.started") return this.#started(event);
    const taken = this.#taken as Taken;
    await this.#log.logStart(() => taken.startedAt ?? taken.at);
    const started = event.type === "tool.finished" ? this.#deferred.get(event.callId) : undefined;
    if (started !== undefined) await this.#log.append(started, taken.startedAt ?? taken.at);
    await this.#log.append(event, taken.at);
    return true;
  }

  /** The first outcome of the outstanding steps; a cancellation through Restate itself is a `run.cancelled` too. */
  async #race(): Promise<Taken | null> {
    const woken = new Promise<null>((resolve) => {
      this.#wake = () => resolve(null);
    });
    try {
      const steps = Array.from(this.#pending.values(), (step) => step.outcome);
      return await Promise.race([RestatePromise.race([...steps, this.#cancelled]), woken]);
    } catch (error) {
      if (!(error instanceof CancelledError)) throw error;
      const reason = "the invocation was cancelled in Restate";
      return cancelledAnswer({ reason, at: await this.#ctx.date.toJSON() });
    } finally {
      this.#wake = null;
    }
  }

  /** The run's first step also journals when it began: the run's start is logged with that time. */
  #model(key: string, step: number, work: () => Promise<LoopAnswer>): PendingStep {
    const first = step === 1;
    const replied = this.#ctx.run(
      key,
      async () => {
        const startedAt = first ? now() : undefined;
        const answer = await work();
        // A failed call is retried by Restate as `modelRetry` says; past them, the run fails with it.
        if (answer.type === "model-failed") throw answer.error;
        if (answer.type !== "model-replied") throw new TypeError(`not a model's answer: ${answer.type}`);
        return { reply: answer.event.reply, at: now(), ...(startedAt === undefined ? {} : { startedAt }) };
      },
      this.#ports.modelRetry ?? {},
    );
    const outcome = replied.map((value, failure): Taken => {
      const { reply, at, startedAt } = settled(value, failure);
      const answer: LoopAnswer = { type: "model-replied", step, event: { type: "model.replied", reply } };
      return { key, at, answer, ...(startedAt === undefined ? {} : { startedAt }) };
    });
    return { key, running: null, outcome };
  }

  /** A compaction is one step, like a model call: its summary is journaled, never asked for again. */
  #compaction(key: string, work: () => Promise<LoopAnswer>): PendingStep {
    const compacted = this.#ctx.run(
      key,
      async () => {
        const answer = await work();
        if (answer.type === "compaction-failed") throw answer.error;
        if (answer.type !== "compacted") throw new TypeError(`not a compaction's answer: ${answer.type}`);
        return { event: answer.event, at: now() };
      },
      this.#ports.modelRetry ?? {},
    );
    const outcome = compacted.map((value, failure): Taken => {
      const { event, at } = settled(value, failure);
      return { key, at, answer: { type: "compacted", event } };
    });
    return { key, running: null, outcome };
  }

  /** A call that may run again is one step that yields its start and its end; any other is the `finished` step after its journaled start. */
  #tool(key: string, call: ToolCall, work: () => Promise<LoopAnswer>): PendingStep {
    const again = this.#deferred.has(call.id);
    const ran = this.#ctx.run(again ? key : `${key} finished`, async () => {
      const startedAt = now();
      const answer = await work();
      if (answer.type !== "tool-result" && answer.type !== "tool-error" && answer.type !== "tool-lost") {
        throw new TypeError(`not a tool's answer: ${answer.type}`);
      }
      return { type: answer.type, event: answer.event, at: now(), ...(again ? { startedAt } : {}) };
    });
    const outcome = ran.map((value, failure): Taken => {
      const { type, event, at, startedAt } = settled(value, failure);
      return { key, at, ...(startedAt === undefined ? {} : { startedAt }), answer: { type, call, event } };
    });
    return { key, running: call, outcome };
  }

  async #started(event: Extract<RunEvent, { type: "tool.started" }>): Promise<boolean> {
    const request = this.#machine.toolRequest(event.callId);
    if (mayRunAgain(this.#ports.registry, request.call)) {
      this.#deferred.set(event.callId, event);
      return true;
    }
    let startedHere = false;
    const at = await this.#ctx.run(`${this.#machine.keyOf(request)} started`, () => {
      startedHere = true;
      return now();
    });
    if (!startedHere) this.interrupted.add(event.callId);
    await this.#log.append(event, at);
    return true;
  }

  /** The approval policy's decision (journaled), or else the durable promise that `decide` resolves. */
  #decision(key: string, call: ToolCall, work: () => Promise<LoopAnswer>): PendingStep {
    const wait = (): PendingStep => {
      const decided = this.#ctx.promise<DecisionRecord>(key).get();
      const outcome = decided.map((record, failure) => decidedAnswer(key, call, settled(record, failure)));
      return { key, running: null, deciding: call, outcome };
    };
    if (this.#ports.approve === undefined) return wait();
    const policy = this.#ctx.run(`${key} policy`, async (): Promise<DecisionRecord | null> => {
      const answer = await policyAnswer(work);
      if (answer.type !== "decided") return null;
      const { approved, reason } = answer.decision;
      return reason === undefined ? { approved, at: now() } : { approved, reason, at: now() };
    });
    const outcome = policy.map((value, failure): Taken => {
      const record = settled(value, failure);
      return record === null ? { key, at: "", answer: null, next: wait } : decidedAnswer(key, call, record);
    });
    return { key, running: null, outcome };
  }
}

/** The policy's answer; a decision core refuses fails the run (retrying would not change it), logging nothing. */
async function policyAnswer(work: () => Promise<LoopAnswer>): Promise<LoopAnswer> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TypeError) throw new TerminalError(error.message);
    throw error;
  }
}

function decidedAnswer(key: string, call: ToolCall, { approved, reason, at }: DecisionRecord): Taken {
  const event = { type: "approval.decided", callId: call.id, approved } as const;
  const answer: LoopAnswer =
    reason === undefined
      ? { type: "decided", call, event, decision: { approved } }
      : { type: "decided", call, event: { ...event, reason }, decision: { approved, reason } };
  return { key, at, answer };
}

function cancelledAnswer({ reason, at }: CancelRecord): Taken {
  const event = reason === undefined ? { type: "run.cancelled" as const } : { type: "run.cancelled" as const, reason };
  return { key: CANCEL_PROMISE, at, answer: { type: "cancelled", event } };
}

/** A mapped step's value, or its terminal failure thrown on (a model that failed past its retries). */
function settled<T>(value: T | undefined, failure: TerminalError | undefined): T {
  if (failure !== undefined) throw failure;
  return value as T;
}

function now(): string {
  return new Date().toISOString();
}
