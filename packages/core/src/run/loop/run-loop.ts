import type {
  AgentEvent,
  AgentRequest,
  AgentResult,
  CeilingReached,
  MemoryStore,
  Message,
  Model,
  ModelDelta,
  RunEvent,
  Transcript,
} from "../../data/index.js";
import { copyJson, listView, messagesOf, RunEnd, usedCallIds } from "../../data/index.js";
import { type AgentSnapshot, nextCallCost } from "../../decide/index.js";
import type { Journal } from "../../log/index.js";
import { EventLogError } from "../../log/index.js";
import type { ToolRegistry } from "../../tools/index.js";
import {
  type AnswerPort,
  type Approver,
  type AskModelOptions,
  answeredFrom,
  answerOf,
  askApprover,
  askModel,
  askPerson,
  checkedSettings,
  compactContext,
  decidedAnswer,
  type EventAnswer,
  holdForCall,
  jitteredDelay,
  leavesAlone,
  type ModelAnswer,
  type ModelRequest,
  type PrepareStep,
  performCheck,
  performHandoff,
  pickedModelName,
  prepareStepAnswer,
  type RunAgent,
  type RunToolOptions,
  recallMemory,
  retryWaited,
  runTool,
  type SpendCeiling,
  type SpendHeld,
  type StepInput,
  type StepPreparedAnswer,
  settleSpent,
  type TurnPorts,
  UNANSWERED,
  waitRetry,
} from "../performers/index.js";
import type { ChildPort } from "./child-port.js";
import { attemptEvent, modelAt } from "./model-attempts.js";
import { InProcess, type LoopAnswer, type Performing } from "./performing.js";
import type { AgentStreamEvent } from "./stream-events.js";

/** The ports the performers reach, and the limits they apply. */
export interface EffectPorts {
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
  /** Where the work runs and its answers wait (default: in this process, taken as they come). */
  readonly performing?: Performing | undefined;
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
  readonly #interrupted: ReadonlySet<string>;
  readonly #inbox: Performing;
  readonly #end = new RunEnd();
  #cancelled = false;
  /** Made from the list at the first reply with calls, then kept up to date: so a reply's ids cost O(calls). */
  #ids: Set<string> | null = null;
  /** The model call in flight (the machine asks for one at a time): its deltas are told with its step. */
  #modelRequest: ModelRequest | null = null;
  /** What each call noted so far (`ToolContext.note`), by call id: a call made again is given its notes. */
  readonly #notes: Map<string, unknown[]>;
  /** What the model call in flight holds against the owner's spending ceiling. */
  #held: SpendHeld | null = null;
  /** The models `prepareStep` picked, by step, until the step's reply comes. */
  readonly #prepared = new Map<number, Model>();
  /** The failure the run rejects with once its `model.failed` is logged: the step's last attempt failed. */
  #givesUp: unknown = null;
  // The performers' options and callbacks are made once per run, not per call: an object with a
  // getter (the signals stay lazy) costs more to make than a plain one.
  readonly #modelOptions: AskModelOptions;
  readonly #toolOptions: RunToolOptions;
  readonly #interruptedOptions: RunToolOptions;

  /**
   * `interrupted`: the calls a resumed run's log shows started and never finished. A journal may
   * add a call while it logs the call's start, when it finds that start logged by an earlier attempt.
   */
  constructor(machine: DrivenMachine, ports: EffectPorts, interrupted: ReadonlySet<string> = new Set()) {
    this.#machine = machine;
    this.#ports = ports;
    this.#interrupted = interrupted;
    this.#inbox = ports.performing ?? new InProcess();
    this.#notes = new Map([...(ports.notes ?? [])].map(([id, notes]) => [id, [...notes]]));
    const end = this.#end;
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

  /**
   * Logs `event` (with a journal; without one nothing is kept) and tells the listener of it: the one
   * place the run's log is written from. Rejects if the store cannot log it.
   */
  async log(event: RunEvent): Promise<void> {
    await this.#record(event);
    this.#tellLogged(event);
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
        this.#tellLogged(event);
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
      this.#tellLogged(event);
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

  #start(request: AgentRequest): Promise<void> | undefined {
    if (this.#end.ended) return;
    if (request.type === "callModel") {
      // Set before the work starts: a durable engine may answer from its journal without running it.
      this.#modelRequest = request;
      const retriesItself = this.#machine.snapshot().context.retry !== null;
      if (request.prepare === true) {
        const work = () => this.#prepareAndAsk(request);
        this.#inbox.perform({ form: "once", request, work, retriesItself });
        return;
      }
      if (this.#ports.onEvent !== undefined) this.#tell({ type: "step-started", step: request.step });
      this.#inbox.perform({ form: "once", request, work: () => this.#askModel(request), retriesItself });
      return;
    }
    if (request.type === "compactContext") {
      const { summarizer = this.#ports.model } = this.#ports;
      const work = () => compactContext(summarizer, request, { signal: this.#end.signal });
      this.#inbox.perform({ form: "once", request, work, retriesItself: false });
      return;
    }
    if (request.type === "waitRetry") {
      const delayMs = jitteredDelay(request);
      // The wait is for the step's next attempt; a run resumed in its wait has made no model request yet.
      this.#tell({ type: "retry-waiting", step: this.#machine.snapshot().context.steps + 1, delayMs });
      const work = () => waitRetry(delayMs, this.#end.signal);
      const delayOf = (random: () => number) => jitteredDelay(request, random);
      this.#inbox.perform({ form: "sleep", request, work, delayOf, woke: retryWaited });
      return;
    }
    if (request.type === "prepareStep") {
      this.#inbox.perform({ form: "once", request, work: () => this.#prepareStep(request), retriesItself: false });
      return;
    }
    if (request.type === "askUser") {
      const { answers } = this.#ports;
      const work = () => askPerson(answers, request);
      const first = firstGiven(answers, work);
      this.#inbox.perform({
        form: "promise",
        request,
        work,
        first,
        settle: (value) => answeredFrom(request.call, value),
      });
      return;
    }
    if (request.type === "requestDecision") {
      this.#tell({ type: "decision-requested", call: request.call });
      const { call } = request;
      const { approve } = this.#ports;
      const work = () => askApprover(approve, call);
      const first = firstGiven(approve, work);
      this.#inbox.perform({ form: "promise", request, work, first, settle: (value) => decidedAnswer(call, value) });
      return;
    }
    if (request.type === "resumeChild") {
      const { children } = this.#ports;
      const { call } = request;
      const work = () => Promise.resolve<LoopAnswer>(children?.resume(call) ?? UNANSWERED);
      const first = firstGiven(children, work);
      const settle = (): LoopAnswer => answerOf({ type: "tool.resumed", callId: call.id });
      this.#inbox.perform({ form: "promise", request, work, first, settle });
      return;
    }
    if (request.type === "handOff") {
      const { registry } = this.#agent(request.from);
      const { transcript } = this.#machine.snapshot().context;
      const work = () => Promise.resolve<LoopAnswer>(performHandoff(request, registry, transcript));
      this.#inbox.perform({ form: "once", request, work, retriesItself: false });
      return;
    }
    if (request.type === "recallMemory") {
      const work = () => recallMemory(this.#ports.memory, request);
      this.#inbox.perform({ form: "once", request, work, retriesItself: false });
      return;
    }
    if (request.type === "checkOutput" || request.type === "checkGuardrail") {
      if (request.type === "checkGuardrail") {
        this.#tell({ type: "guardrail-started", stage: request.stage, name: request.name });
      }
      const work = () => performCheck(request, this.#ports.checks, () => this.#end.signal);
      this.#inbox.perform({ form: "once", request, work, retriesItself: false });
      return;
    }
    const { call } = request;
    if (this.#interrupted.has(call.id)) return this.#runTool(request, true);
    const childRunId = this.#ports.children?.childRunIdOf(call);
    const started: RunEvent =
      childRunId === undefined
        ? { type: "tool.started", callId: call.id, name: call.name }
        : { type: "tool.started", callId: call.id, name: call.name, childRunId };
    const logged = this.#record(started);
    if (logged === undefined) {
      this.#tellLogged(started);
      return this.#runTool(request);
    }
    return logged.then(() => {
      if (this.#end.ended) return;
      // A journal that finds the start logged by an earlier attempt adds the call to the interrupted ones.
      if (this.#interrupted.has(call.id)) return this.#runTool(request, true);
      this.#tellLogged(started);
      this.#runTool(request);
    });
  }

  /** The agent that answers now: the run's own model and registry, or in a run with handoffs the agent the last handoff named. */
  #answering(): Pick<RunAgent, "model" | "registry"> {
    const handoffs = this.#machine.snapshot().context.handoffs;
    return handoffs === null ? this.#ports : this.#agent(handoffs.agent);
  }

  /** The agent of that name in a run with handoffs (the log names only agents its settings list, all found at its start). */
  #agent(name: string): RunAgent {
    const agent = this.#ports.agents?.get(name);
    if (agent === undefined) {
      throw new RangeError(
        `the run's log hands the conversation to agent '${name}', which no handoff tool of the agent it started with reaches`,
      );
    }
    return agent;
  }

  /** The run's `prepareStep`; a run started with it and resumed without it is refused. */
  #preparer(): PrepareStep {
    const { prepareStep } = this.#ports;
    if (prepareStep === undefined) {
      throw new TypeError("the run was started with prepareStep: give it again to go on with the run");
    }
    return prepareStep;
  }

  async #prepareStep(request: Extract<AgentRequest, { type: "prepareStep" }>) {
    const prepareStep = this.#preparer();
    const { specs, replyReserve } = this.#machine.snapshot().context;
    return this.#checkedPrepared(
      request.step,
      await prepareStepAnswer(prepareStep, request, specs, replyReserve, this.#end.signal),
    );
  }

  /** Refuses a model `prepareStep` picked that the run's cost budget cannot price. */
  #checkedPrepared(step: number, answer: StepPreparedAnswer): StepPreparedAnswer {
    const { costBudget, prices } = this.#machine.snapshot().context;
    // The cost check prices a call at the run's model: under a costBudget another model would be
    // priced wrongly, so it is refused before the call rather than guessed at.
    const priced = prices?.models[0]?.name ?? "(unnamed)";
    if (answer.event.model !== undefined && costBudget !== Number.POSITIVE_INFINITY && answer.event.model !== priced) {
      throw new TypeError(
        `prepareStep picked model '${answer.event.model}' for step ${step}, but a run with costBudget calls only the model it was priced for ('${priced}')`,
      );
    }
    return answer;
  }

  /**
   * A model call that asks `prepareStep` first: settings that change something are the answer
   * (`step.prepared`, logged before the call the machine then asks for); none, and the model is
   * asked at once with the run's settings, with nothing logged for the preparation.
   */
  #prepareAndAsk(request: ModelRequest): Promise<LoopAnswer> {
    try {
      const prepareStep = this.#preparer();
      const { step, transcript } = request;
      const { tokens } = this.#machine.snapshot().context;
      const given = prepareStep(new StepView(step, tokens, transcript, this.#end));
      // Most steps are left alone, and most prepareSteps answer at once: then the model is asked
      // with no wait and no promise more than a call without prepareStep makes.
      return given instanceof Promise
        ? given.then((settings: unknown) => this.#afterPreparing(request, settings))
        : this.#afterPreparing(request, given);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The model call once `prepareStep` answered: its settings as the answer when they change something, else the call. */
  #afterPreparing(request: ModelRequest, settings: unknown): Promise<LoopAnswer> {
    const { step } = request;
    if (!leavesAlone(settings)) {
      const { specs, replyReserve } = this.#machine.snapshot().context;
      return Promise.resolve(this.#checkedPrepared(step, checkedSettings(step, settings, specs, replyReserve)));
    }
    this.#tell({ type: "step-started", step });
    return this.#askModel(request);
  }

  async #askModel(request: ModelRequest): Promise<ModelAnswer | EventAnswer<CeilingReached>> {
    const picked = request.prepared?.model === undefined ? undefined : await this.#preparedModel(request);
    const own = request.agent === undefined ? this.#ports.model : this.#agent(request.agent.name).model;
    const model =
      picked !== undefined && (request.model ?? 0) === 0
        ? picked
        : modelAt(own, this.#ports.fallbackModels, request.model);
    if (model === undefined) {
      throw new RangeError(
        `the run's log asks fallback model ${request.model}, but only ${this.#ports.fallbackModels?.length ?? 0} fallbackModels were given`,
      );
    }
    const { ceiling } = this.#ports;
    if (ceiling !== undefined) {
      const hold = await holdForCall(ceiling, nextCallCost(this.#machine.snapshot().context));
      if ("refused" in hold) return hold.refused;
      this.#held = hold.held;
    }
    return askModel(model, request, this.#modelOptions);
  }

  /** Settles the owner's spending once the machine counted an event: a call's hold to what it cost, or what a child or a summary spent. */
  async #settleSpent(event: AgentEvent, costBefore: number): Promise<void> {
    const ceiling = this.#ports.ceiling as SpendCeiling;
    const spent = this.#machine.snapshot().context.cost - costBefore;
    const answersCall = event.type === "model.replied" || event.type === "model.failed";
    const held = answersCall ? this.#held : null;
    if (answersCall) this.#held = null;
    await settleSpent(ceiling, held, spent);
  }

  /**
   * The model `prepareStep` picked for the request's step. A run resumed in that very call finds
   * only the model's name in its log: `prepareStep` is asked again for the model alone, and must
   * pick one of the same name.
   */
  async #preparedModel(request: ModelRequest): Promise<Model> {
    const kept = this.#prepared.get(request.step);
    if (kept !== undefined) return kept;
    const prepared = request.prepared as NonNullable<ModelRequest["prepared"]>;
    const again = await this.#prepareStep({
      type: "prepareStep",
      step: request.step,
      transcript: request.transcript,
      tokens: this.#machine.snapshot().context.tokens,
    });
    if (again.model === undefined || pickedModelName(again.model) !== prepared.model) {
      throw new RangeError(
        `prepareStep picked model '${prepared.model}' for step ${request.step} in the run's log, but ${again.model === undefined ? "no model" : `'${pickedModelName(again.model)}'`} now`,
      );
    }
    this.#prepared.set(request.step, again.model);
    return again.model;
  }

  /** Runs a call, once its start is logged; a call the log shows cut off runs (or is lost) without a second start. */
  #runTool(request: Extract<AgentRequest, { type: "runTool" }>, interrupted = false): undefined {
    const { call } = request;
    const { children } = this.#ports;
    // A child cut off is resumed from its own log, never lost: nothing it logged is done again.
    if (children?.runsChild(call) === true) {
      const work = () => children.perform(call, this.#end.signal);
      this.#inbox.perform({ form: "once", request, work, retriesItself: false });
      return undefined;
    }
    const options = interrupted ? this.#interruptedOptions : this.#toolOptions;
    const { registry } = this.#answering();
    const notes = { notes: this.#notes.get(call.id) ?? NO_NOTES, note: (value: unknown) => this.#note(call.id, value) };
    const work = () => runTool(registry, call, options, request.answers, notes);
    this.#inbox.perform({ form: "once", request, work, retriesItself: false });
    return undefined;
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

  /** The event an answer gives the machine, or null for none (no decision or answer yet, a child's pause, a failure that is moot). */
  #eventOf(answer: LoopAnswer): AgentEvent | null {
    if (answer.type === "failed") this.#fail(answer.error);
    if (answer.type !== "event") return null;
    const { event } = answer;
    if (event.type === "model.replied" || event.type === "model.failed")
      return this.#attemptEvent(answer as ModelAnswer);
    if (event.type === "step.prepared") {
      this.#prepared.clear();
      if (answer.model !== undefined) this.#prepared.set(event.step, answer.model);
    }
    return event;
  }

  /** A model's answer as the machine takes it; a failure without a retry policy fails the run at once. */
  #attemptEvent(answer: ModelAnswer): AgentEvent | null {
    // An attempt cut off by the run's end is moot, not a failure to log.
    if (answer.event.type === "model.failed" && this.#end.ended) return null;
    const model = (this.#modelRequest as ModelRequest).model ?? 0;
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

  #tell(event: AgentStreamEvent): void {
    this.#ports.onEvent?.(event);
  }

  /** Tells the listener of an event once it is logged (nothing is made for a run nobody listens to). */
  #tellLogged(event: RunEvent): void {
    const { onEvent } = this.#ports;
    if (onEvent !== undefined) onEvent({ type: "logged", event });
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

/**
 * A promise performance's answer at hand: with a port the run was given (an approver, answers),
 * what it gives when that is the answer (`given`); without one, none, and the value comes from outside.
 */
function firstGiven(port: unknown, work: () => Promise<LoopAnswer>): (() => Promise<LoopAnswer | null>) | null {
  if (port === undefined) return null;
  return async () => {
    const answer = await work();
    return answer.type === "event" ? answer : null;
  };
}

/**
 * What `prepareStep` is shown for one step. The list's view and the run's signal are made only
 * when read: most prepareSteps read neither on most steps, and a signal made is one more abort to
 * send when the run ends. A class, so that the getters are its prototype's, not made per step.
 */
class StepView implements StepInput {
  #messages: readonly Message[] | undefined;
  readonly #transcript: Transcript;
  readonly #end: RunEnd;

  constructor(
    readonly step: number,
    readonly tokens: number,
    transcript: Transcript,
    end: RunEnd,
  ) {
    this.#transcript = transcript;
    this.#end = end;
  }

  get messages(): readonly Message[] {
    this.#messages ??= listView(this.#transcript);
    return this.#messages;
  }

  get signal(): AbortSignal {
    return this.#end.signal;
  }
}
