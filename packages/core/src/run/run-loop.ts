import type { AgentEvent, AgentRequest, AgentResult, Model, ModelDelta, RunEvent, ToolCall } from "../data/index.js";
import { messagesOf, RunEnd, usedCallIds } from "../data/index.js";
import type { AgentSnapshot } from "../decide/index.js";
import type { Journal } from "../log/index.js";
import { EventLogError } from "../log/index.js";
import type { ToolRegistry } from "../tools/index.js";
import { AnswerInbox } from "./answer-inbox.js";
import { type Approver, type ApproverAnswer, askApprover } from "./ask-approver.js";
import { type AskModelOptions, askModel, type ModelAnswer, type ModelRequest } from "./ask-model.js";
import { type RunToolOptions, runTool, type ToolAnswer } from "./run-tool.js";
import type { AgentStreamEvent } from "./stream-events.js";
import { type CheckAnswer, performCheck, type TurnPorts } from "./turn-checks.js";

/** The ports the performers reach, and the limits they apply. */
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
  /** What performs this turn's answer check and guardrails. */
  readonly checks?: TurnPorts | undefined;
}

/** A machine as the loop drives it: the requests it emitted since last asked, its snapshot, and the events it takes. */
export interface DrivenMachine {
  takeRequests(): readonly AgentRequest[];
  snapshot(): AgentSnapshot;
  send(event: AgentEvent): void;
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

/** What the loop takes next: a performer's answer, the run's cancellation, a failure, or the stop. */
type Answer =
  | ModelAnswer
  | ToolAnswer
  | ApproverAnswer
  | CheckAnswer
  | { readonly type: "cancelled"; readonly event: Extract<AgentEvent, { type: "run.cancelled" }> }
  | { readonly type: "failed"; readonly error: unknown }
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
  readonly #interrupted: ReadonlySet<string>;
  readonly #inbox: AnswerInbox<Answer> = new AnswerInbox<Answer>();
  readonly #end = new RunEnd();
  #inFlight = 0;
  #cancelled = false;
  /** Made from the list at the first reply with calls, then kept up to date: so a reply's ids cost O(calls). */
  #ids: Set<string> | null = null;
  /** The model call in flight (the machine asks for one at a time): its deltas are told with its step. */
  #modelRequest: ModelRequest | null = null;
  // The performers' options and callbacks are made once per run, not per call: an object with a
  // getter (the signals stay lazy) costs more to make than a plain one.
  readonly #modelOptions: AskModelOptions;
  readonly #toolOptions: RunToolOptions;
  readonly #interruptedOptions: RunToolOptions;
  readonly #answered = (answer: Answer): void => {
    this.#inFlight--;
    this.#inbox.push(answer);
  };
  readonly #failed = (error: unknown): void => {
    this.#inFlight--;
    this.#inbox.push({ type: "failed", error });
  };

  /** `interrupted`: the calls a resumed run's log shows started and never finished. */
  constructor(machine: DrivenMachine, ports: EffectPorts, interrupted: ReadonlySet<string> = new Set()) {
    this.#machine = machine;
    this.#ports = ports;
    this.#interrupted = interrupted;
    const end = this.#end;
    const { onEvent, toolTimeoutMs, maxResultChars } = ports;
    this.#modelOptions = {
      get signal() {
        return end.signal;
      },
      onDelta: onEvent === undefined ? undefined : (delta: ModelDelta) => this.#tellDelta(delta),
      output: ports.checks?.output === undefined ? undefined : { schema: ports.checks.output.schema },
      usedIds: () => {
        this.#ids ??= usedCallIds(messagesOf((this.#modelRequest as ModelRequest).transcript));
        return this.#ids;
      },
    };
    this.#toolOptions = toolOptions(end, toolTimeoutMs, maxResultChars, false);
    this.#interruptedOptions = toolOptions(end, toolTimeoutMs, maxResultChars, true);
  }

  /** Logs `event` (with a journal; without one nothing is kept): the one place the run's log is written from. Rejects if the store cannot log it. */
  async log(event: RunEvent): Promise<void> {
    await this.#record(event);
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
    this.#inbox.push({
      type: "cancelled",
      event: reason instanceof Error ? { ...event, reason: reason.message } : event,
    });
    this.#end.end();
  }

  /** Stops the loop: work in flight is aborted and its late answers are dropped. */
  stop(): void {
    this.#end.end();
    this.#inbox.push({ type: "stopped" });
  }

  /** Drives the machine until it ends, pauses or is stopped; rejects with the first failure (`ModelError`, the store's, a listener's). */
  async run(): Promise<LoopOutcome> {
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
        if (this.#inFlight === 0 && this.#inbox.size === 0) return this.#idle();
        const next = this.#inbox.next();
        const answer = next instanceof Promise ? await next : next;
        if (answer.type === "stopped") return { type: "stopped" };
        // Once the run ends from outside, late answers are dropped; a queued cancellation still comes.
        if (this.#end.ended && !this.#cancelled) continue;
        const event = this.#eventOf(answer);
        if (event === null) continue;
        const logged = this.#record(event);
        if (logged !== undefined) await logged;
        this.#tellTaken(answer);
        this.#machine.send(event);
      }
    } finally {
      this.#end.end();
    }
  }

  /** Nothing in flight: the run was stopped, or it waits for decisions only. */
  #idle(): LoopOutcome {
    if (this.#end.ended) return { type: "stopped" };
    const snapshot = this.#machine.snapshot();
    if (!snapshot.matches({ executingTools: "awaitingDecision" })) {
      throw new Error("agentloop: the machine waits for nothing (a broken invariant)");
    }
    return { type: "paused", snapshot };
  }

  #start(request: AgentRequest): Promise<void> | undefined {
    if (this.#end.ended) return;
    if (request.type === "callModel") {
      this.#tell({ type: "step-started", step: request.step });
      this.#perform(this.#askModel(request));
      return;
    }
    if (request.type === "requestDecision") {
      this.#tell({ type: "decision-requested", call: request.call });
      this.#perform(askApprover(this.#ports.approve, request.call));
      return;
    }
    if (request.type === "checkOutput" || request.type === "checkGuardrail") {
      if (request.type === "checkGuardrail") {
        this.#tell({ type: "guardrail-started", stage: request.stage, name: request.name });
      }
      this.#perform(performCheck(request, this.#ports.checks, () => this.#end.signal));
      return;
    }
    const { call } = request;
    if (this.#interrupted.has(call.id)) return this.#runTool(call, true);
    const logged = this.#record({ type: "tool.started", callId: call.id, name: call.name });
    if (logged === undefined) return this.#runTool(call, false);
    return logged.then(() => {
      if (!this.#end.ended) this.#runTool(call, false);
    });
  }

  #askModel(request: ModelRequest): Promise<ModelAnswer> {
    this.#modelRequest = request;
    return askModel(this.#ports.model, request, this.#modelOptions);
  }

  /** A call the log shows cut off runs (or is lost) without a second start; any other is told as started first. */
  #runTool(call: ToolCall, interrupted: boolean): undefined {
    if (!interrupted) this.#tell({ type: "tool-started", call });
    this.#perform(runTool(this.#ports.registry, call, interrupted ? this.#interruptedOptions : this.#toolOptions));
    return undefined;
  }

  #perform(work: Promise<Answer>): void {
    this.#inFlight++;
    work.then(this.#answered, this.#failed);
  }

  /** The event an answer gives the machine, or null for none (no decision, or a failure that is moot). */
  #eventOf(answer: Answer): AgentEvent | null {
    switch (answer.type) {
      case "model-replied":
      case "tool-result":
      case "tool-error":
      case "tool-lost":
      case "decided":
      case "cancelled":
      case "output-checked":
      case "guardrail-checked":
        return answer.event;
      case "model-failed":
      case "failed":
        this.#fail(answer.error);
        return null;
      default:
        return null;
    }
  }

  /** Tells the listener of an answer's event, once it is logged and just before the machine takes it. */
  #tellTaken(answer: Answer): void {
    if (this.#ports.onEvent === undefined) return;
    if (answer.type === "model-replied") {
      this.#tell({ type: "step-finished", step: answer.step, reply: answer.event.reply });
    } else if (answer.type === "decided") {
      this.#tell({ type: "decision-given", call: answer.call, decision: answer.decision });
    } else if (answer.type === "output-checked") {
      this.#tell({ type: "output-checked", verdict: answer.event });
    } else if (answer.type === "guardrail-checked") {
      this.#tell({ type: "guardrail-checked", verdict: answer.event });
    } else if (answer.type === "tool-result" || answer.type === "tool-error" || answer.type === "tool-lost") {
      const { call, event } = answer;
      this.#tell({ type: "tool-finished", call, content: event.content, isError: answer.type !== "tool-result" });
    }
  }

  #fail(error: unknown): void {
    // A failure caused by the cancellation itself (an aborted model call) is moot.
    if (this.#end.ended && !(error instanceof EventLogError)) return;
    throw error;
  }

  #tell(event: AgentStreamEvent): void {
    this.#ports.onEvent?.(event);
  }

  /** A delta comes while the loop waits: a listener that throws on it fails the run at the loop's next turn. */
  #tellDelta(delta: ModelDelta): void {
    if (this.#end.ended) return;
    try {
      this.#tell({ ...delta, step: (this.#modelRequest as ModelRequest).step });
    } catch (error) {
      this.#inbox.push({ type: "failed", error });
    }
  }
}

function toolOptions(
  end: RunEnd,
  toolTimeoutMs: number | undefined,
  maxResultChars: number | undefined,
  interrupted: boolean,
): RunToolOptions {
  return {
    get signal() {
      return end.signal;
    },
    toolTimeoutMs,
    maxResultChars,
    interrupted,
  };
}
