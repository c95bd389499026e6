import type {
  AgentEvent,
  AgentRequest,
  CeilingReached,
  MemoryStore,
  Model,
  ModelDelta,
  RunEnd,
  RunEvent,
} from "../../data/index.js";
import { copyJson, messagesOf, usedCallIds } from "../../data/index.js";
import { type AgentContext, type AgentSnapshot, nextCallCost } from "../../decide/index.js";
import type { Journal } from "../../log/index.js";
import type { ToolRegistry } from "../../tools/index.js";
import {
  type AnswerPort,
  type Approver,
  type AskModelOptions,
  askModel,
  type EventAnswer,
  holdForCall,
  type ModelAnswer,
  type ModelRequest,
  type PrepareStep,
  type RunAgent,
  type RunToolOptions,
  runTool,
  type SpendCeiling,
  type SpendHeld,
  StepPreparer,
  type TurnPorts,
} from "../performers/index.js";
import type { ChildPort } from "./child-port.js";
import { modelAt } from "./model-attempts.js";
import type { AgentStreamEvent } from "./stream-events.js";
import type { OnceWork } from "./works.js";

/** The ports the performers reach, and the limits they apply (`EffectPorts` adds where the work runs). */
export interface PerformerPorts {
  readonly model: Model;
  /** Asked in turn once `model` has failed a call (the run's `retry` and `fallbackModels` settings decide when). */
  readonly fallbackModels?: readonly Model[] | undefined;
  readonly registry: ToolRegistry;
  /** Writes the summaries of a compacting run (default: `model`). */
  readonly summarizer?: Model | undefined;
  /** Where the run's events are logged, after what was logged before when the run is resumed. */
  readonly journal?: Pick<Journal, "commit"> | undefined;
  /** Decides on calls to tools registered with `needsApproval`. */
  readonly approve?: Approver | undefined;
  /** Decides each model call's settings, for a run started with it. */
  readonly prepareStep?: PrepareStep | undefined;
  /** Answers the questions of ask-user tools (checked before the run started); none: the run pauses for them. */
  readonly answers?: AnswerPort | undefined;
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
  /** Runs the calls of agent tools as child runs (absent: the registry has none). */
  readonly children?: ChildPort | undefined;
  /** What the calls of a resumed run noted before (`tool.noted`), by call id: given back to each call made again. */
  readonly notes?: ReadonlyMap<string, readonly unknown[]> | undefined;
  /** In a run with handoff tools, its agents by name: the one that answers now gives the model and the tools. */
  readonly agents?: ReadonlyMap<string, RunAgent> | undefined;
  /** The owner's spending ceiling across runs: each model call is held against it first (absent: none). */
  readonly ceiling?: SpendCeiling | undefined;
  /** Where a run with memory recalls from before each turn (absent: a run without memory, or one not given it again). */
  readonly memory?: MemoryStore | undefined;
}

/** A machine as the loop drives it: the requests it emitted since last asked, its snapshot, and the events it takes. */
export interface DrivenMachine {
  takeRequests(): readonly AgentRequest[];
  snapshot(): AgentSnapshot;
  send(event: AgentEvent): void;
}

/**
 * What a row of the request table reaches as it hands its request over: the run's ports, the
 * machine's context, the run's end, the listener, the log, and the performers that keep something
 * from one request to the next (the model call in flight and what it holds, `prepareStep`'s picks,
 * the calls' notes).
 */
export class LoopDesk {
  readonly ports: PerformerPorts;
  /**
   * The calls a resumed run's log shows started and never finished. A journal may add a call while
   * it logs the call's start, when it finds that start logged by an earlier attempt.
   */
  readonly interrupted: ReadonlySet<string>;
  readonly preparer: StepPreparer;
  readonly #machine: DrivenMachine;
  readonly #end: RunEnd;
  /** Where a failure outside any work goes (a listener that throws on a delta): the loop's inbox. */
  readonly #failed: (error: unknown) => void;
  /** Logs an event with a journal: the loop's, the one place the run's log is written from. */
  readonly #record: (event: RunEvent) => Promise<boolean> | undefined;
  /** Made from the list at the first reply with calls, then kept up to date: so a reply's ids cost O(calls). */
  #ids: Set<string> | null = null;
  /** The model call in flight (the machine asks for one at a time): its deltas are told with its step. */
  #modelRequest: ModelRequest | null = null;
  /** What each call noted so far (`ToolContext.note`), by call id: a call made again is given its notes. */
  readonly #notes: Map<string, unknown[]>;
  /** What the model call in flight holds against the owner's spending ceiling. */
  #held: SpendHeld | null = null;
  // The performers' options and callbacks are made once per run, not per call: an object with a
  // getter (the signals stay lazy) costs more to make than a plain one.
  readonly #modelOptions: AskModelOptions;
  readonly #toolOptions: RunToolOptions;
  readonly #interruptedOptions: RunToolOptions;

  constructor(
    machine: DrivenMachine,
    ports: PerformerPorts,
    interrupted: ReadonlySet<string>,
    end: RunEnd,
    record: (event: RunEvent) => Promise<boolean> | undefined,
    failed: (error: unknown) => void,
  ) {
    this.ports = ports;
    this.interrupted = interrupted;
    this.#machine = machine;
    this.#end = end;
    this.#failed = failed;
    this.#record = record;
    this.preparer = new StepPreparer(ports.prepareStep, this);
    this.#notes = new Map([...(ports.notes ?? [])].map(([id, notes]) => [id, [...notes]]));
    const { onEvent, toolTimeoutMs, maxResultChars } = ports;
    this.#modelOptions = {
      get signal() {
        return end.signal;
      },
      onDelta: onEvent === undefined ? undefined : (delta: ModelDelta) => this.#tellDelta(delta),
      get harnessRetries() {
        return machine.snapshot().context.retry !== null;
      },
      output: ports.checks?.output === undefined ? undefined : { schema: ports.checks.output.schema },
      usedIds: () => {
        this.#ids ??= usedCallIds(messagesOf((this.#modelRequest as ModelRequest).transcript));
        return this.#ids;
      },
    };
    this.#toolOptions = toolOptions(end, toolTimeoutMs, maxResultChars, false);
    this.#interruptedOptions = toolOptions(end, toolTimeoutMs, maxResultChars, true);
  }

  /** Whether the run has ended: its work is aborted, and nothing new is started. */
  get ended(): boolean {
    return this.#end.ended;
  }

  /** The run's signal: aborts once the run ends. */
  get signal(): AbortSignal {
    return this.#end.signal;
  }

  /** The machine's context now. */
  context(): AgentContext {
    return this.#machine.snapshot().context;
  }

  /** The model call in flight, from when it is handed over. */
  get modelRequest(): ModelRequest {
    return this.#modelRequest as ModelRequest;
  }

  /** Notes the model call about to be handed over: set before the work starts, since a durable engine may answer from its journal without running it. */
  calling(request: ModelRequest): void {
    this.#modelRequest = request;
  }

  tell(event: AgentStreamEvent): void {
    this.ports.onEvent?.(event);
  }

  /** Tells the listener the step's model call starts (once `prepareStep`, asked first, left the step alone). */
  readonly stepStarted = (step: number): void => {
    this.tell({ type: "step-started", step });
  };

  /** Logs `event` with a journal (the loop does), without telling the listener; without a journal, nothing to wait for. */
  record(event: RunEvent): Promise<boolean> | undefined {
    return this.#record(event);
  }

  /** Tells the listener of an event once it is logged (nothing is made for a run nobody listens to). */
  tellLogged(event: RunEvent): void {
    const { onEvent } = this.ports;
    if (onEvent !== undefined) onEvent({ type: "logged", event });
  }

  /** Logs `event` and tells the listener of it: the one place the run's log is written from. */
  async log(event: RunEvent): Promise<void> {
    await this.record(event);
    this.tellLogged(event);
  }

  /** The agent of that name in a run with handoffs (the log names only agents its settings list, all found at its start). */
  agent(name: string): RunAgent {
    const agent = this.ports.agents?.get(name);
    if (agent === undefined) {
      throw new RangeError(
        `the run's log hands the conversation to agent '${name}', which no handoff tool of the agent it started with reaches`,
      );
    }
    return agent;
  }

  /** Asks the model of the request (the one `prepareStep` picked, a fallback, or the answering agent's), held against the ceiling first. */
  readonly askModel = async (request: ModelRequest): Promise<ModelAnswer | EventAnswer<CeilingReached>> => {
    const picked = request.prepared?.model === undefined ? undefined : await this.preparer.model(request);
    const own = request.agent === undefined ? this.ports.model : this.agent(request.agent.name).model;
    const model =
      picked !== undefined && (request.model ?? 0) === 0
        ? picked
        : modelAt(own, this.ports.fallbackModels, request.model);
    if (model === undefined) {
      throw new RangeError(
        `the run's log asks fallback model ${request.model}, but only ${this.ports.fallbackModels?.length ?? 0} fallbackModels were given`,
      );
    }
    const { ceiling } = this.ports;
    if (ceiling !== undefined) {
      const hold = await holdForCall(ceiling, nextCallCost(this.context()));
      if ("refused" in hold) return hold.refused;
      this.#held = hold.held;
    }
    return askModel(model, request, this.#modelOptions);
  };

  /** What the model call just answered held against the ceiling, given up to be settled. */
  takeHeld(): SpendHeld | null {
    const held = this.#held;
    this.#held = null;
    return held;
  }

  /** The work of a call, once its start is logged; a call the log shows cut off runs (or is lost) without a second start. */
  toolWork(request: Extract<AgentRequest, { type: "runTool" }>, interrupted: boolean): OnceWork {
    const { call } = request;
    const { children } = this.ports;
    // A child cut off is resumed from its own log, never lost: nothing it logged is done again.
    if (children?.runsChild(call) === true) {
      return { work: () => children.perform(call, this.#end.signal), retriesItself: false };
    }
    const options = interrupted ? this.#interruptedOptions : this.#toolOptions;
    const handoffs = this.context().handoffs;
    // The agent that answers now: the run's own registry, or in a run with handoffs the last handoff's agent's.
    const { registry } = handoffs === null ? this.ports : this.agent(handoffs.agent);
    const notes = { notes: this.#notes.get(call.id) ?? NO_NOTES, note: (value: unknown) => this.#note(call.id, value) };
    const memoryScope = this.context().memory?.scope;
    const attempt = { answers: request.answers, notes, memoryScope };
    return { work: () => runTool(registry, call, options, attempt), retriesItself: false };
  }

  /** Logs what a running call noted, and keeps it for the call's next attempt; refuses anything but plain JSON. */
  #note(callId: string, value: unknown): Promise<void> {
    const copied = copyJson(value);
    if (!copied.ok) return Promise.reject(new TypeError(`a tool's note must be plain JSON: ${copied.problem}`));
    const kept = this.#notes.get(callId);
    if (kept === undefined) this.#notes.set(callId, [copied.value]);
    else kept.push(copied.value);
    return this.log({ type: "tool.noted", callId, note: copied.value });
  }

  /** A delta comes while the loop waits: a listener that throws on it fails the run at the loop's next turn. */
  #tellDelta(delta: ModelDelta): void {
    if (this.#end.ended) return;
    try {
      this.tell({ ...delta, step: (this.#modelRequest as ModelRequest).step });
    } catch (error) {
      this.#failed(error);
    }
  }
}

const NO_NOTES: readonly unknown[] = Object.freeze([]);

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
