import type { AgentResult, Decision, PendingQuestion, Pricing, ToolCall, ToolResumed } from "../../data/index.js";
import { chainCallId, escapeCallId, toolFinished } from "../../data/index.js";
import { type AgentContext, type AgentSnapshot, type ChildShare, childShare } from "../../decide/index.js";
import type { EventStore } from "../../log/index.js";
import type { ToolRegistry } from "../../tools/index.js";
import { cutResult, DEFAULT_MAX_RESULT_CHARS } from "../../tools/index.js";
import type { ChildPaused, ChildPort } from "../loop/index.js";
import { type AgentStreamEvent, originTagging } from "../loop/index.js";
import type { AgentOptions, ModelWithLimits } from "../options/index.js";
import type { Approver, ToolAnswer, TurnOptions } from "../performers/index.js";
import { answerOf, type EventAnswer, UNANSWERED, type Unanswered } from "../performers/index.js";
import { type ChildMoney, childSpending } from "./child-cost.js";

/** What a child run is started or resumed with: the parent's call, and what the parent hands down. */
export interface ChildStart extends ChildMoney {
  readonly call: ToolCall;
  /** The parent's store and the child's run id in it (both absent for a run without a store). */
  readonly store?: EventStore | undefined;
  readonly childRunId?: string | undefined;
  readonly parentRunId?: string | undefined;
  /** Tokens the child may spend: its own budget, cut to what the parent had left when the call started. */
  readonly tokenBudget: number;
  /** The parent's approver, shown the child's calls with chained ids. */
  readonly approve?: Approver | undefined;
  /** Decisions for the child's waiting calls: its own calls' by their escaped ids, its children's by chained id. */
  readonly decisions: Readonly<Record<string, Decision>>;
  /** Answers for the child's waiting questions, named as `decisions` are. */
  readonly answers: Readonly<Record<string, unknown>>;
  /** The parent's signal: aborting it cancels the child. */
  readonly signal: AbortSignal;
  /** The parent's listener, told each of the child's events with its `origin` (absent when the parent has none). */
  readonly onEvent?: ((event: AgentStreamEvent) => void) | undefined;
}

/** The agent an agent tool runs: its model, tools and options, and the task a call gives it. */
export interface ChildAgent {
  readonly model: ModelWithLimits;
  readonly registry: ToolRegistry;
  readonly options: AgentOptions & TurnOptions;
  /** The child's task from the call's arguments; throws for arguments that make none (see `problem`). */
  task(call: ToolCall): string;
}

/** A tool that runs a child agent: its own token budget, and how it starts (or resumes) the child. */
export interface ChildTool {
  readonly name: string;
  /** What it runs, for a driver that starts the child elsewhere (a durable engine's workflow of its own). */
  readonly agent: ChildAgent;
  readonly tokenBudget: number;
  /** USD the child may spend per turn by its own options (`Infinity`: no limit of its own). */
  readonly costBudget: number;
  /** The models of the child's tree with no price under its own pricing, else `inherited`. */
  unpriced(inherited: Pricing | undefined): string[];
  readonly maxResultChars?: number | undefined;
  /** Milliseconds the child may run, from the tool's own `timeoutMs` (the run's `toolTimeoutMs` does not apply to children). */
  readonly timeoutMs?: number | undefined;
  /** Why the call's arguments make no task (the model is told, and no child starts), or null. */
  problem(call: ToolCall): string | null;
  /** Starts or resumes the child; rejects as the child's run does (a model down, a store failing), which fails the parent. */
  perform(start: ChildStart): Promise<AgentResult>;
}

/** The child tool registered under `name` (its registry entry's agent performer), or undefined for any other tool. */
export function childToolOf(registry: ToolRegistry, name: string): ChildTool | undefined {
  const performer = registry.performerOf(name);
  // Only `agentTool` makes an agent performer, and its child is a `ChildTool`.
  return performer?.kind === "agent" ? (performer.child as ChildTool) : undefined;
}

/** Whether any tool of `registry` runs a child agent, in O(1). */
export function hasChildTools(registry: ToolRegistry): boolean {
  return registry.hasPerformer("agent");
}

const RUN_ID = /^[A-Za-z0-9_-]+$/;
const MAX_RUN_ID = 128;

/**
 * The run id of the child that call `callId` of run `parentRunId` runs, the same every time it is
 * asked (so a resumed parent finds its child): `<parent>.<call>`, or a hash of the call id when that
 * would not make a valid run id.
 */
export function childRunIdOf(parentRunId: string, callId: string): string {
  const plain = `${parentRunId}.${callId}`;
  if (RUN_ID.test(callId) && plain.length <= MAX_RUN_ID) return plain;
  return `${parentRunId.slice(0, MAX_RUN_ID - 11)}.h${fnv1a(`${parentRunId}/${callId}`)}`;
}

/** FNV-1a, 32 bits, as 8 hex digits: a short stable name, not a security measure. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** The calls `chainedCall` made: their ids are chained already, so a parent chains them as they are. */
const chainedCalls = new WeakSet<ToolCall>();

/**
 * A child's waiting call as its parent lists it: its id chained under the parent's call
 * (`<parent call id>/<child call id>`, each call id escaped, see `chainCallId`).
 */
export function chainedCall(parentCallId: string, call: ToolCall): ToolCall {
  const chained = { ...call, id: chainCallId(parentCallId, call.id, chainedCalls.has(call)) };
  chainedCalls.add(chained);
  return chained;
}

/**
 * The calls a tree waits on as its root lists them: its own calls by their ids, then its children's
 * by chained id; an own call whose id is also a child call's chained id is listed by its id escaped
 * (`%2F` for `/`), so that no two waiting calls share an id.
 */
export function treeListing(own: readonly ToolCall[], chained: readonly ToolCall[]): ToolCall[] {
  // Read back from a log, chained calls are plain objects: they are marked as chained again here.
  for (const call of chained) chainedCalls.add(call);
  const taken = new Set(chained.map((call) => call.id));
  const listed = own.map((call) => {
    if (!taken.has(call.id)) return call;
    const escaped = { ...call, id: escapeCallId(call.id) };
    chainedCalls.add(escaped);
    return escaped;
  });
  return [...listed, ...chained];
}

/** How the children read their parent's context now (what it has left, the reply's calls). */
export type ParentContext = () => AgentContext;

/** The parent's context as its children read it, from the machine its loop drives: for a driver outside core. */
export function parentContext(machine: { snapshot(): AgentSnapshot }): ParentContext {
  return () => machine.snapshot().context;
}

/** What a parent run hands its children. */
export interface ChildCallsOptions {
  readonly registry: ToolRegistry;
  readonly store?: EventStore | undefined;
  readonly runId?: string | undefined;
  readonly approve?: Approver | undefined;
  /** Decisions given to resume the parent, for calls of its children, by chained id. */
  readonly decisions?: Readonly<Record<string, Decision>> | undefined;
  /** Answers given to resume the parent, for questions of its children, by chained id. */
  readonly answers?: Readonly<Record<string, unknown>> | undefined;
  /** The parent's listener: it hears its children's events too, tagged with their origin. */
  readonly onEvent?: ((event: AgentStreamEvent) => void) | undefined;
  /** The parent's context now: what it has left is read from it when a child starts. */
  readonly context: () => AgentContext;
  /** The parent's pricing, for children that have none of their own. */
  readonly pricing?: Pricing | undefined;
  /** Whether the parent was resumed with an approver of its caller's: then it may decide what waits below a paused call. */
  readonly approverBelow?: boolean | undefined;
}

/**
 * The children of one live run: each agent tool's call runs (or resumes) its child with a budget
 * reserved out of what the parent has left (shared evenly with the agent calls of the reply still
 * to start), so that children running at once never spend more together; a child's reservation
 * is given back once the parent's machine has counted its tokens.
 */
export class ChildCalls implements ChildPort {
  readonly #options: ChildCallsOptions;
  #reserved = 0;
  #reservedCost = 0;
  readonly #reservations = new Map<string, { tokens: number; cost: number }>();
  /** The paused calls resumed with what this run was given: each once, so that a child that pauses again waits. */
  readonly #resumed = new Set<string>();
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(options: ChildCallsOptions) {
    this.#options = options;
  }

  /** The child run a call runs, when the run has a store and the call is a valid call of an agent tool. */
  childRunIdOf(call: ToolCall): string | undefined {
    const { store, runId, registry } = this.#options;
    if (store === undefined || runId === undefined || !this.runsChild(call)) return undefined;
    return registry.wouldRun(call) ? childRunIdOf(runId, call.id) : undefined;
  }

  /** Whether the call is one of an agent tool (an invalid one is refused by the registry as any call is). */
  runsChild(call: ToolCall): boolean {
    return childToolOf(this.#options.registry, call.name) !== undefined && this.#options.registry.wouldRun(call);
  }

  /** Starts (or resumes) the call's child, reserving its budget now; answers as a tool does, or as paused. */
  perform(call: ToolCall, signal: AbortSignal): Promise<ToolAnswer | ChildPaused> {
    const child = childToolOf(this.#options.registry, call.name) as ChildTool;
    const problem = child.problem(call);
    if (problem !== null) {
      const event = toolFinished(call.id, `ERROR: ${child.name} could not start: ${problem}`, "child");
      return Promise.resolve({ type: "event", event });
    }
    const { tokenBudget, costBudget } = this.reserve(call);
    const { store, runId, approve, onEvent } = this.#options;
    const childRunId = this.childRunIdOf(call);
    const start: ChildStart = {
      call,
      store: childRunId === undefined ? undefined : store,
      childRunId,
      parentRunId: runId,
      tokenBudget,
      costBudget,
      pricing: this.#options.pricing,
      approve: approve === undefined ? undefined : (inner) => approve(chainedCall(call.id, inner)),
      decisions: routedTo(call.id, this.#options.decisions),
      answers: routedTo(call.id, this.#options.answers),
      signal: timed(signal, child.timeoutMs),
      onEvent: onEvent === undefined ? undefined : originTagging(onEvent, call.id, childRunId),
    };
    const running = child.perform(start);
    this.#inFlight.add(running);
    const forget = () => this.#inFlight.delete(running);
    running.then(forget, forget);
    // A child that rejects fails the parent with it: its log (and the parent's) stay resumable.
    return running.then((result) => this.answer(call, childRunId, result));
  }

  /**
   * Reserves the share of what the parent has left that the call's child may spend, now: shared
   * evenly with the agent calls of the reply still to start, never more than the child's own limits.
   */
  reserve(call: ToolCall): ChildShare {
    const child = childToolOf(this.#options.registry, call.name) as ChildTool;
    const reservedNow = { tokens: this.#reserved, cost: this.#reservedCost };
    const share = childShare(this.#options.context(), reservedNow, child, this.#laterChildCalls(call));
    const { tokenBudget, costBudget } = share;
    // An unlimited parent has nothing to share out; only a finite budget is reserved.
    const reserved = Number.isFinite(tokenBudget) ? tokenBudget : 0;
    const reservedCost = Number.isFinite(costBudget) ? costBudget : 0;
    this.#reserved += reserved;
    this.#reservedCost += reservedCost;
    this.#reservations.set(call.id, { tokens: reserved, cost: reservedCost });
    return { tokenBudget, costBudget };
  }

  /** Resolves once every child started is over (however it ended): so that a parent returns only after its children let go of their runs. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Gives a call's reservation back: the parent's machine has counted what its child spent. */
  settle(callId: string): void {
    const reserved = this.#reservations.get(callId);
    if (reserved === undefined) return;
    this.#reservations.delete(callId);
    this.#reserved -= reserved.tokens;
    this.#reservedCost -= reserved.cost;
  }

  /**
   * The answer to a call paused in its child (`resumeChild`), once per call: resumed when this run
   * was given a decision or an answer for something below it (by chained id), or when it was
   * resumed with an approver (who is then shown what waits below, as the child asks); else it waits.
   */
  resume(call: ToolCall): EventAnswer<ToolResumed> | Unanswered {
    const prefix = `${escapeCallId(call.id)}/`;
    const { decisions = {}, answers = {}, approverBelow = false } = this.#options;
    const given =
      approverBelow || [...Object.keys(decisions), ...Object.keys(answers)].some((id) => id.startsWith(prefix));
    if (!given || this.#resumed.has(call.id)) return UNANSWERED;
    this.#resumed.add(call.id);
    return answerOf({ type: "tool.resumed", callId: call.id });
  }

  /** The agent tool calls of the reply after `call`: they start later, and each gets its share of what is left. */
  #laterChildCalls(call: ToolCall): number {
    const calls = this.#options.context().batch?.calls ?? [];
    const index = calls.findIndex((each) => each.id === call.id);
    return index < 0 ? 0 : calls.slice(index + 1).filter((each) => this.runsChild(each)).length;
  }

  /** The parent's answer to the call, from its child's result: the observation (with what it spent), or a pause. */
  answer(call: ToolCall, childRunId: string | undefined, result: AgentResult): ToolAnswer | ChildPaused {
    const child = childToolOf(this.#options.registry, call.name) as ChildTool;
    if (result.status === "awaiting_approval" || result.status === "awaiting_input") {
      this.settle(call.id);
      const pending = (result.pendingApprovals ?? []).map((waiting) => chainedCall(call.id, waiting));
      const questions = (result.pendingQuestions ?? []).map((waiting) => chainedQuestion(call.id, waiting));
      return answerOf({ type: "tool.paused", callId: call.id, pending, questions });
    }
    const content = cutResult(observationOf(child.name, result), child.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
    const event = {
      ...toolFinished(call.id, content, result.status === "done" ? undefined : "child"),
      ...linkOf(childRunId),
      tokens: result.tokens,
      ...childSpending(result),
    };
    return { type: "event", event };
  }
}

/** What was given for the calls of the child of call `callId`: its calls' by their escaped ids, its children's by chained ids. */
function routedTo<T>(callId: string, given: Readonly<Record<string, T>> | undefined): Record<string, T> {
  const prefix = `${escapeCallId(callId)}/`;
  // Own properties even for ids such as `__proto__`: a call id is the model's data.
  return Object.fromEntries(
    Object.entries(given ?? {})
      .filter(([id]) => id.startsWith(prefix))
      .map(([id, value]) => [id.slice(prefix.length), value]),
  );
}

/** A child's waiting question as its parent lists it: its id chained as `chainedCall` chains a call's. */
function chainedQuestion(parentCallId: string, question: PendingQuestion): PendingQuestion {
  const chained = { ...question, id: chainCallId(parentCallId, question.id, chainedQuestions.has(question)) };
  chainedQuestions.add(chained);
  return chained;
}

/** The questions `chainedQuestion` made: their ids are chained already. */
const chainedQuestions = new WeakSet<PendingQuestion>();

/** The questions a tree waits on as its root lists them: its own, then its children's, marked as chained (read back from a log, they are plain objects). */
export function treeQuestionListing(
  own: readonly PendingQuestion[],
  chained: readonly PendingQuestion[],
): PendingQuestion[] {
  for (const question of chained) chainedQuestions.add(question);
  return [...own, ...chained];
}

/** The parent's signal, cut after `timeoutMs` when the tool sets one: a child out of time ends `cancelled`. */
function timed(signal: AbortSignal, timeoutMs: number | undefined): AbortSignal {
  if (timeoutMs === undefined || timeoutMs === Number.POSITIVE_INFINITY) return signal;
  return AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
}

function linkOf(childRunId: string | undefined): { childRunId?: string } {
  return childRunId === undefined ? {} : { childRunId };
}

/** What the parent's model is told of a child's end: its answer (its output as JSON), or an `ERROR:` naming its status. */
export function observationOf(name: string, result: AgentResult): string {
  if (result.status === "done") {
    return result.output === undefined ? (result.answer ?? "") : JSON.stringify(result.output);
  }
  const said = result.answer === null || result.answer === "" ? "" : ` Its last words: ${result.answer}`;
  return (
    `ERROR: ${name} ended with status ${result.status} and no answer after ${result.steps} model calls.` +
    `${said} Answer without it, or call it again with a smaller task.`
  );
}
