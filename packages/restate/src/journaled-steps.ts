import type { Approver, ToolRegistry } from "@agentloop/core";
import {
  type LoopAnswer,
  mayRunAgain,
  type OncePerformance,
  type Performance,
  type Performing,
  type PromisePerformance,
  type SleepPerformance,
} from "@agentloop/core/driver";
import {
  CancelledError,
  RestatePromise,
  type RunOptions,
  TerminalError,
  type WorkflowContext,
} from "@restatedev/restate-sdk";
import { childStep } from "./child-step.js";
import type { ChildWorkflows } from "./child-workflows.js";
import type { KeyedMachine, RunEvent } from "./core-port.js";
import { type JournaledAnswer, journaledAnswer, revivedAnswer } from "./journaled-answer.js";
import type { RunLog } from "./run-log.js";
import { statusOf } from "./run-status.js";
import { now, type PendingStep, settled, type Taken } from "./step-outcome.js";
import type { CancelRecord } from "./types.js";

/** The name of the durable promise that `cancel` resolves. */
export const CANCEL_PROMISE = "cancel";

/** Restate's retry options for a `ctx.run` (a model call's, here). */
export type StepRetry = Omit<RunOptions<unknown>, "serde">;

/**
 * What the journaled steps reach besides the performers: the tools (to tell which may run again),
 * the approval policy, the model's retries, and the run's children (each a run of the workflow
 * named `workflow`).
 */
export interface StepPorts {
  readonly registry: ToolRegistry;
  readonly approve?: Approver | undefined;
  readonly modelRetry?: StepRetry | undefined;
  readonly children?: ChildWorkflows | undefined;
  readonly workflow?: string | undefined;
}

/** A step's answer as its journal entry keeps it, with when it ended (and began). */
interface Journaled {
  readonly answer: JournaledAnswer;
  readonly at: string;
  readonly startedAt?: string;
}

/** A value given from outside (`decide`'s decision, `answer`'s answer), stamped where it was given. */
type PromisedRecord = Readonly<Record<string, unknown>> & { readonly at: string };

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
  /** Steps whose start is journaled apart from their end (calls that may not run again). */
  readonly #startsJournaled = new Set<string>();
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

  perform(performance: Performance): void {
    const key = this.#machine.keyOf(performance.request);
    const { request } = performance;
    const children = this.#ports.children;
    const child =
      request.type === "runTool" &&
      children?.runsChild(request.call) === true &&
      children.problem(request.call) === null;
    const step = child
      ? childStep(this.#ctx, key, request.call, children, this.#ports.workflow ?? "agent")
      : performance.form === "once"
        ? this.#once(key, performance)
        : performance.form === "promise"
          ? this.#promise(key, performance)
          : this.#sleep(key, performance);
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
      const childRuns = this.#childRuns();
      if (this.#log.statusDue || this.#deciding() || childRuns !== null) {
        const position = this.#machine.position();
        const status = statusOf(this.#ctx.key, position, this.#pending.values(), this.#log.length);
        const { decisionKeys, questionKeys } = position;
        const waits = status.awaitingDecision.length > 0 || status.pendingQuestions.length > 0;
        const children = childRuns === null ? {} : { childRuns };
        this.#log.setStatus(status, { decisionKeys, questionKeys, ...children }, waits);
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

  /** The children running now, by the call that runs each, when the run has agent tools: the status lists them for `status`, `decide` and `answer`. */
  #childRuns(): Record<string, string> | null {
    if (this.#ports.children === undefined) return null;
    const runs: Record<string, string> = {};
    for (const step of this.#pending.values()) {
      if (step.child !== undefined && step.running !== null) runs[step.running.id] = step.child;
    }
    return runs;
  }

  /** Whether a step waits for `decide` or `answer`: the status then lists its call (only then does the phase change mid-run). */
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

  /**
   * Work done once: its answer is journaled with when it began and ended. A failure is retried by
   * Restate (`modelRetry`) unless the run retries it itself, when it is journaled as the answer; a
   * step whose start was journaled apart (a call that may not run again) is its `finished` step.
   */
  #once(key: string, performance: OncePerformance): PendingStep {
    const { request, retriesItself } = performance;
    const name = this.#startsJournaled.has(key) ? `${key} finished` : key;
    // The model `prepareStep` picked, which the journal (JSON) cannot hold: kept while this execution lives.
    let picked: LoopAnswer | null = null;
    const done = this.#ctx.run(
      name,
      async (): Promise<Journaled> => {
        const startedAt = now();
        const answer = await terminalOnMisuse(performance.work);
        if (answer.type === "event" && answer.model !== undefined) picked = answer;
        return { answer: journaledAnswer(answer, retriesItself), at: now(), startedAt };
      },
      this.#ports.modelRetry ?? {},
    );
    const outcome = done.map((value, failure): Taken => {
      const { answer, at, startedAt } = settled(value, failure);
      return { key, at, startedAt, answer: picked ?? revivedAnswer(answer) };
    });
    // Work done for a call is that call running, for the status.
    return { key, running: "call" in request ? request.call : null, outcome };
  }

  async #started(event: Extract<RunEvent, { type: "tool.started" }>): Promise<boolean> {
    const request = this.#machine.toolRequest(event.callId);
    if (mayRunAgain(this.#ports.registry, request.call)) {
      this.#deferred.set(event.callId, event);
      return true;
    }
    let startedHere = false;
    const key = this.#machine.keyOf(request);
    this.#startsJournaled.add(key);
    const at = await this.#ctx.run(`${key} started`, () => {
      startedHere = true;
      return now();
    });
    if (!startedHere) this.interrupted.add(event.callId);
    await this.#log.append(event, at);
    return true;
  }

  /** The answer at hand (an approval policy's, journaled), or else the durable promise named by the key, which `decide` or `answer` resolves. */
  #promise(key: string, performance: PromisePerformance): PendingStep {
    const { request, first, settle } = performance;
    const wait = (): PendingStep => {
      const given = this.#ctx.promise<PromisedRecord>(key).get();
      const outcome = given.map((record, failure): Taken => {
        const { at, ...value } = settled(record, failure);
        return { key, at, answer: settle(value) };
      });
      return { key, running: null, deciding: request.call, outcome };
    };
    if (first === null) return wait();
    const policy = this.#ctx.run(`${key} policy`, async (): Promise<Journaled | null> => {
      const answer = await terminalOnMisuse(first);
      return answer === null ? null : { answer: journaledAnswer(answer, false), at: now() };
    });
    const outcome = policy.map((value, failure): Taken => {
      const journaled = settled(value, failure);
      if (journaled === null) return { key, at: "", answer: null, next: wait };
      return { key, at: journaled.at, answer: revivedAnswer(journaled.answer) };
    });
    return { key, running: null, outcome };
  }

  /** A durable sleep of the wait the performance chooses with Restate's deterministic randomness, then a journaled wake-up time. */
  #sleep(key: string, performance: SleepPerformance): PendingStep {
    const delayMs = performance.delayOf(() => this.#ctx.rand.random());
    const woke = (): PendingStep => {
      const at = this.#ctx.run(`${key} woke`, () => now());
      const outcome = at.map(
        (value, failure): Taken => ({ key, at: settled(value, failure), answer: performance.woke(delayMs) }),
      );
      return { key, running: null, outcome };
    };
    const outcome = this.#ctx.sleep(delayMs, key).map((_value, failure): Taken => {
      settled(null, failure);
      return { key, at: "", answer: null, next: woke };
    });
    return { key, running: null, outcome };
  }
}

/** Work that fails on what retrying cannot change (an option not given again, a bad decision) fails the run, logging nothing. */
async function terminalOnMisuse<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError) throw new TerminalError(error.message);
    throw error;
  }
}

function cancelledAnswer({ reason, at }: CancelRecord): Taken {
  const event = reason === undefined ? { type: "run.cancelled" as const } : { type: "run.cancelled" as const, reason };
  return { key: CANCEL_PROMISE, at, answer: { type: "event", event } };
}
