import type { AgentEvent, AgentRequest, AgentResult, RunEvent } from "../../data/index.js";
import { RunEnd } from "../../data/index.js";
import type { AgentSnapshot } from "../../decide/index.js";
import { EventLogError } from "../../log/index.js";
import { answerOf, type ModelAnswer, type SpendCeiling, settleSpent } from "../performers/index.js";
import { type DrivenMachine, LoopDesk, type PerformerPorts } from "./desk.js";
import { attemptEvent } from "./model-attempts.js";
import { InProcess, type Performance, type Performing } from "./performing.js";
import { REQUEST_TABLE, type RequestEntry, type RequestKind } from "./request-table.js";
import type { LoopAnswer } from "./works.js";

/** The ports the performers reach, and the limits they apply; and where the work runs. */
export interface EffectPorts extends PerformerPorts {
  /** Where the work runs and its answers wait (default: in this process, taken as they come). */
  readonly performing?: Performing | undefined;
}

/**
 * Where the loop stopped: the machine reached a final state (`ended`), or it waits only for
 * decisions the approver did not give and nothing is in flight (`paused`), or it was stopped
 * from outside (`stopped`).
 */
export type LoopOutcome =
  | { readonly type: "ended"; readonly result: AgentResult }
  | { readonly type: "paused"; readonly snapshot: AgentSnapshot }
  | { readonly type: "stopped" };

/**
 * The driver of a run, as a loop: it takes the machine's requests, performs them (several at once
 * when the machine asks for several), logs each answering event, and sends it to the machine, in
 * the order the answers come. A pause is one of its outcomes: nothing in flight, and only calls
 * waiting for decisions nobody gave. Every event of the run is logged through `log`, the one place
 * the run's log is written from.
 */
export class RunLoop {
  readonly #machine: DrivenMachine;
  readonly #ports: EffectPorts;
  readonly #inbox: Performing;
  readonly #end = new RunEnd();
  /** What the rows of the request table reach as they hand their requests over. */
  readonly #desk: LoopDesk;
  #cancelled = false;
  /** The failure the run rejects with once its `model.failed` is logged: the step's last attempt failed. */
  #givesUp: unknown = null;

  /**
   * `interrupted`: the calls a resumed run's log shows started and never finished. A journal may
   * add a call while it logs the call's start, when it finds that start logged by an earlier attempt.
   */
  constructor(machine: DrivenMachine, ports: EffectPorts, interrupted: ReadonlySet<string> = new Set()) {
    this.#machine = machine;
    this.#ports = ports;
    const inbox = ports.performing ?? new InProcess();
    this.#inbox = inbox;
    const record = (event: RunEvent) => this.#record(event);
    const failed = (error: unknown) => inbox.push({ type: "failed", error });
    this.#desk = new LoopDesk(machine, ports, interrupted, this.#end, record, failed);
  }

  /**
   * Logs `event` (with a journal; without one nothing is kept) and tells the listener of it: the one
   * place the run's log is written from. Rejects if the store cannot log it.
   */
  async log(event: RunEvent): Promise<void> {
    await this.#record(event);
    this.#desk.tellLogged(event);
  }

  /** Without a journal, nothing to wait for. */
  #record(event: RunEvent): Promise<boolean> | undefined {
    return this.#ports.journal?.commit(event);
  }

  /** Queues the run's cancellation behind the answers that came before it, and aborts the work in flight. */
  cancel(reason: unknown): void {
    if (this.#cancelled || this.#end.ended) return;
    this.#cancelled = true;
    const event = { type: "run.cancelled" as const };
    this.#inbox.push(answerOf(reason instanceof Error ? { ...event, reason: reason.message } : event));
    this.#end.end();
  }

  /** Stops the loop: work in flight is aborted and its late answers are dropped. */
  stop(): void {
    this.#end.end();
    this.#inbox.push({ type: "stopped" });
  }

  /** Drives the machine until it ends, pauses or is stopped; rejects with the first failure (`ModelError`, the store's, a listener's). */
  async run(): Promise<LoopOutcome> {
    const desk = this.#desk;
    try {
      for (;;) {
        const snapshot = this.#machine.snapshot();
        if (snapshot.status === "error") throw snapshot.error;
        if (snapshot.status !== "active") return { type: "ended", result: snapshot.output as AgentResult };
        for (const request of this.#machine.takeRequests()) {
          // Only a tool's start, when it is logged, makes the loop wait before it takes the next request.
          const starting = this.#start(request);
          if (starting !== undefined) await starting;
        }
        if (this.#inbox.idle) return this.#idle();
        const next = this.#inbox.next();
        const answer = next instanceof Promise ? await next : next;
        if (answer.type === "stopped") return { type: "stopped" };
        // Once the run ends from outside, late answers are dropped; a queued cancellation still comes.
        if (this.#end.ended && !this.#cancelled) continue;
        const event = this.#eventOf(answer);
        if (event === null) continue;
        if (answer.type === "event" && answer.preceding !== undefined) await this.#logPreceding(answer.preceding);
        const logged = this.#record(event);
        if (logged !== undefined) await logged;
        desk.tellLogged(event);
        const costBefore = this.#ports.ceiling === undefined ? 0 : this.#machine.snapshot().context.cost;
        this.#machine.send(event);
        // A child's reservation is given back only now that the machine counts what it spent.
        if (event.type === "tool.finished") this.#ports.children?.settle(event.callId);
        if (this.#ports.ceiling !== undefined) await this.#settleSpent(event, costBefore);
        if (this.#givesUp !== null) throw this.#givesUp;
      }
    } finally {
      this.#end.end();
    }
  }

  /** Logs what a performance did besides its answer, in order, before the answer. */
  async #logPreceding(events: readonly RunEvent[]): Promise<void> {
    for (const event of events) {
      const logged = this.#record(event);
      if (logged !== undefined) await logged;
      this.#desk.tellLogged(event);
    }
  }

  /** Nothing in flight: the run was stopped, or it waits for decisions only. */
  #idle(): LoopOutcome {
    if (this.#end.ended) return { type: "stopped" };
    const snapshot = this.#machine.snapshot();
    const waits =
      snapshot.matches({ executingTools: "awaitingDecision" }) || snapshot.matches({ executingTools: "awaitingInput" });
    if (!waits) {
      throw new Error("agentloop: the machine waits for nothing (a broken invariant)");
    }
    return { type: "paused", snapshot };
  }

  /** Hands a request over as its row of `REQUEST_TABLE` says, in the row's durable form. */
  #start(request: AgentRequest): Promise<void> | undefined {
    if (this.#end.ended) return;
    const row = REQUEST_TABLE[request.type] as RequestEntry<RequestKind> as Handing;
    return row.perform(request, this.#desk, (work) => {
      this.#inbox.perform({ form: row.form, request, ...work } as Performance);
      return undefined;
    });
  }

  /** Settles the owner's spending once the machine counted an event: a call's hold to what it cost, or what a child or a summary spent. */
  async #settleSpent(event: AgentEvent, costBefore: number): Promise<void> {
    const ceiling = this.#ports.ceiling as SpendCeiling;
    const spent = this.#machine.snapshot().context.cost - costBefore;
    const answersCall = event.type === "model.replied" || event.type === "model.failed";
    const held = answersCall ? this.#desk.takeHeld() : null;
    await settleSpent(ceiling, held, spent);
  }

  /** The event an answer gives the machine, or null for none (no decision or answer yet, a child's pause, a failure that is moot). */
  #eventOf(answer: LoopAnswer): AgentEvent | null {
    if (answer.type === "failed") this.#fail(answer.error);
    if (answer.type !== "event") return null;
    const { event } = answer;
    if (event.type === "model.replied" || event.type === "model.failed")
      return this.#attemptEvent(answer as ModelAnswer);
    if (event.type === "step.prepared") this.#desk.preparer.keep(event.step, answer.model);
    return event;
  }

  /** A model's answer as the machine takes it; a failure without a retry policy fails the run at once. */
  #attemptEvent(answer: ModelAnswer): AgentEvent | null {
    // An attempt cut off by the run's end is moot, not a failure to log.
    if (answer.event.type === "model.failed" && this.#end.ended) return null;
    const model = this.#desk.modelRequest.model ?? 0;
    const taken = attemptEvent(answer, this.#machine.snapshot().context, model);
    if (taken === null) {
      this.#fail(answer.error);
      return null;
    }
    // The last failure is logged too, so that the log lists every attempt; then the run rejects.
    if (taken.givesUp !== undefined) this.#givesUp = taken.givesUp;
    return taken.event;
  }

  #fail(error: unknown): void {
    // A failure caused by the cancellation itself (an aborted model call) is moot.
    if (this.#end.ended && !(error instanceof EventLogError)) return;
    throw error;
  }
}

/** A row of the table as the loop reads it, for any kind: the request's kind picked the row. */
interface Handing {
  readonly form: Performance["form"];
  perform(
    request: AgentRequest,
    desk: LoopDesk,
    hand: (work: Omit<Performance, "form" | "request">) => undefined,
  ): Promise<void> | undefined;
}
