import { type AdjacencyMap, getAdjacencyMap, getSimplePaths, type StatePath } from "@xstate/graph";
import { type ActorLogic, initialTransition, transition } from "xstate";
import { agentMachine, countTokens, final, type ModelReply, ToolRegistry, toolCall } from "../../src/index.js";
import {
  type AgentEvent,
  type AgentMachineInput,
  type AgentSnapshot,
  type CallState,
  messagesOf,
  resolveSettings,
} from "../../src/machine.js";

export type { AgentSnapshot };
export type Path = StatePath<AgentSnapshot, AgentEvent>;
export type Adjacency = AdjacencyMap<AgentSnapshot, AgentEvent>;
export type Move = { readonly event: AgentEvent; readonly state: AgentSnapshot };

/**
 * The machine as `getAdjacencyMap` types its argument: @xstate/graph 3.0.4 leaves out the emitted
 * events' type parameter, so a machine that emits needs this widening. It is the same object.
 */
const graphLogic = agentMachine as unknown as ActorLogic<AgentSnapshot, AgentEvent, AgentMachineInput>;

export const FINAL_STATES = ["done", "stepLimit", "tokenBudget", "refused", "repeatedCall", "cancelled"] as const;
export const HUGE_BUDGET = 1_000_000;
/** The one tool that needs approval in the graphs. */
export const RISKY = "send";

export const RUNNING = { executingTools: "runningTools" } as const;
export const AWAITING = { executingTools: "awaitingDecision" } as const;

/** The repeated-call guard: off (the default), or on with a policy. */
export const POLICIES = ["off", "refuse", "stop"] as const;
export type Policy = (typeof POLICIES)[number];

/**
 * How the model names its calls: `fresh` ids never repeat in a run; `reused` ids come back in every
 * reply (distinct within one); `shared` gives every call the id `x`, several in one reply, as a log
 * of schema 1 could hold (the driver makes ids unique before it logs a reply since schema 2).
 */
export type Ids = "fresh" | "reused" | "shared";

/**
 * What a graph explores: the limits, the repeat policy, the concurrency cap, the menu of replies and
 * how the model names its calls. `send` always needs approval; `lookup` is idempotent.
 */
export interface Setup {
  readonly maxSteps: number;
  readonly tokenBudget: number;
  /** Default off; on, the limit is `repeatLimit` (default 3, as `runAgent`'s). */
  readonly policy?: Policy;
  readonly repeatLimit?: number;
  /** Default: every call of a reply at once. */
  readonly toolConcurrency?: number;
  /** `serial` replies ask for one lookup, or for `send` and an unknown tool; `parallel` also asks for two lookups at once. */
  readonly menu?: "serial" | "parallel";
  readonly ids?: Ids;
  /** USD per turn, with every model priced at `GRAPH_PRICE` (absent: no pricing). */
  readonly costBudget?: number;
  /** Every reply reports this many prompt tokens and `COUNTED_REPLY` reply tokens (absent: no usage, the estimate counts). */
  readonly counted?: number;
  /** The run has an owner's spending ceiling: any model call may be refused by it (`ceiling.reached`) instead of answered. */
  readonly ceiling?: boolean;
}

/** The answer of a spending ceiling that refuses a model call, in the graphs that have one. */
export const CEILING: AgentEvent = { type: "ceiling.reached", window: "day", limit: 5, spent: 4.99, reserve: 0.02 };

/** The reply tokens a reply reports in a graph whose replies report usage. */
export const COUNTED_REPLY = 5;

/** The graphs' price: a million USD per 1M tokens, so that a run's cost is its tokens, in whole numbers. */
export const GRAPH_PRICE = { input: 1_000_000, output: 1_000_000 } as const;

function graphRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  const never = () => {
    throw new Error("graph traversal must not run a tool");
  };
  const lookup = { type: "object", properties: { q: { type: "string" } } } as const;
  registry.register("lookup", "Looks a word up.", lookup, never, { idempotent: true });
  registry.register(RISKY, "Sends a message.", { type: "object", properties: { to: { type: "string" } } }, never, {
    needsApproval: true,
  });
  return registry;
}

/** The machine's input for a setup: settings as `runAgent` resolves them; a `shared`-ids graph decides as a log of schema 1. */
export function inputOf({
  maxSteps,
  tokenBudget,
  policy = "off",
  repeatLimit,
  toolConcurrency,
  ids,
  costBudget,
}: Setup) {
  const model = () => {
    throw new Error("graph traversal must not call the model");
  };
  const options = {
    maxSteps,
    tokenBudget,
    ...(policy === "off" ? {} : { onRepeatedCall: policy }),
    ...(repeatLimit === undefined ? {} : { repeatLimit }),
    ...(toolConcurrency === undefined ? {} : { toolConcurrency }),
    ...(costBudget === undefined ? {} : { costBudget, pricing: { default: GRAPH_PRICE } }),
  };
  const settings = resolveSettings("How hot is Pune?", model, graphRegistry(), options);
  return ids === "shared" ? { settings, schemaVersion: 1 } : { settings };
}

export const CANCEL: AgentEvent = { type: "run.cancelled" };

/** The id of call `index` (named `name` when ids are fresh or reused) of the reply to model call `step`. */
function idOf(setup: Setup, name: string, step: number): string {
  if (setup.ids === "shared") return "x";
  return setup.ids === "reused" ? name : `${name}${step}`;
}

/** What the model may reply at model call `step`: an answer, a refusal, and the replies with calls of the setup's menu. */
export function repliesAt(setup: Setup, step: number): ModelReply[] {
  const id = (name: string) => idOf(setup, name, step);
  const replies: ModelReply[] = [
    final(`answer ${step}`),
    { content: `refusal ${step}`, toolCalls: [], finishReason: "refusal" },
    { content: `thought ${step}`, toolCalls: [toolCall(id("s"), "lookup", { q: "a" })] },
    { content: "", toolCalls: [toolCall(id("a"), RISKY, { to: "x" }), toolCall(id("b"), "nope")] },
  ];
  if (setup.menu === "parallel") {
    replies.push({
      content: "",
      toolCalls: [toolCall(id("c"), "lookup", { q: "a" }), toolCall(id("d"), "lookup", { q: "b" })],
    });
  }
  if (setup.ids === "shared") {
    // Two calls that need approval under one id: one decision may never send both to run.
    replies.push({ content: "", toolCalls: [toolCall("x", RISKY, { to: "1" }), toolCall("x", RISKY, { to: "2" })] });
  }
  const { counted } = setup;
  if (counted === undefined) return replies;
  return replies.map((reply) => ({ ...reply, usage: { inputTokens: counted, outputTokens: COUNTED_REPLY } }));
}

/** Where each call of the last reply stands, in call order. */
export function callStates(snapshot: AgentSnapshot): CallState[] {
  const { batch } = snapshot.context;
  return batch === null ? [] : batch.calls.map((_, index) => batch.stateOf(index));
}

/** How many calls of the last reply run, and how many wait for a decision, counted from each call's state. */
export function callCounts(snapshot: AgentSnapshot): { running: number; deciding: number } {
  const states = callStates(snapshot);
  return {
    running: states.filter((s) => s === "running").length,
    deciding: states.filter((s) => s === "deciding").length,
  };
}

/**
 * The concrete events possible in each state, for a setup. The model replies as `repliesAt` says. A
 * decision approves or denies a call that waits for one; a tool finishes a call that runs — any of
 * them, in any order. The caller may cancel in every state that waits.
 */
export function eventsFor(setup: Setup): (snapshot: AgentSnapshot) => AgentEvent[] {
  return (snapshot) => {
    if (snapshot.status !== "active") return [];
    if (snapshot.matches("callingModel")) {
      const replies = repliesAt(setup, snapshot.context.steps + 1);
      const answers = replies.map((reply): AgentEvent => ({ type: "model.replied", reply }));
      return setup.ceiling === true ? [...answers, CEILING, CANCEL] : [...answers, CANCEL];
    }
    const { batch } = snapshot.context;
    if (batch === null) return [];
    const events = new Map<string, AgentEvent>();
    const add = (event: AgentEvent) => events.set(JSON.stringify(event), event);
    for (const [index, state] of callStates(snapshot).entries()) {
      const callId = batch.calls[index]?.id ?? "";
      if (state === "deciding") {
        add({ type: "approval.decided", callId, approved: true });
        add({ type: "approval.decided", callId, approved: false, reason: "not now" });
      }
      if (state === "running") add({ type: "tool.finished", callId, content: `{"for":"${callId}"}` });
    }
    return [...events.values(), CANCEL];
  };
}

const keys = new WeakMap<AgentSnapshot, string>();
const costKeys = new WeakMap<AgentSnapshot, string>();

/**
 * What decides a snapshot's future under `eventsFor`: the state, the step count, while calls are
 * under way each call with where it stands (which events come next), the last call (repeats), and,
 * when `withCost`, the tokens spent, the size of the list and what the providers counted (every
 * later budget decision).
 * Snapshots equal in these behave alike, so merging them is sound and every path found can be
 * replayed. Without the cost, runs that differ only in what they spent share their vertices: the
 * graph stays small while its simple paths still enumerate every run. The default
 * `serializeSnapshot` cannot be used: it serializes the transcript's backing array, which later
 * steps push into.
 */
export function keyOf(snapshot: AgentSnapshot, withCost: boolean): string {
  const cache = withCost ? costKeys : keys;
  const known = cache.get(snapshot);
  if (known !== undefined) return known;
  const { steps, batch, lastCall, tokens, transcript, cost, promptCounts } = snapshot.context;
  const calls =
    batch !== null && snapshot.matches("executingTools")
      ? batch.calls.map((call, index) => [call.id, call.name, batch.stateOf(index)])
      : null;
  const parts: unknown[] = [snapshot.value, steps, calls, batch?.appended, lastCall];
  if (withCost) parts.push(tokens, transcript.chars, transcript.length, cost);
  // What the providers counted decides the later budget checks too, when replies report usage.
  if (withCost && promptCounts !== null && promptCounts.length > 0) parts.push(promptCounts);
  const key = JSON.stringify(parts);
  cache.set(snapshot, key);
  return key;
}

export interface Graph {
  readonly setup: Setup;
  readonly input: AgentMachineInput;
  readonly events: (snapshot: AgentSnapshot) => AgentEvent[];
  readonly serializeState: (snapshot: AgentSnapshot) => string;
  readonly adjacency: Adjacency;
  /** Every simple path from the start, to every vertex (as `getSimplePaths` gives them). */
  readonly paths: Path[];
}

const graphs = new Map<string, Graph>();

export function explore(setup: Setup): Graph {
  const key = JSON.stringify(setup);
  const known = graphs.get(key);
  if (known !== undefined) return known;
  const input = inputOf(setup);
  const withCost = setup.tokenBudget !== HUGE_BUDGET || setup.costBudget !== undefined;
  const serializeState = (snapshot: AgentSnapshot) => keyOf(snapshot, withCost);
  const events = eventsFor(setup);
  const adjacency = getAdjacencyMap(graphLogic, { input, events, serializeState, limit: 50_000 });
  const start = initialTransition(agentMachine, input)[0];
  const graph = {
    setup,
    input,
    events,
    serializeState,
    adjacency,
    paths: simplePaths(adjacency, start, serializeState),
  };
  graphs.set(key, graph);
  return graph;
}

/** `getSimplePaths`' own answer for a graph: it walks the whole graph once per vertex, so only for small graphs. */
export function libraryPaths(graph: Graph): Path[] {
  const { input, events, serializeState } = graph;
  return getSimplePaths(agentMachine, { input, events, serializeState, limit: 50_000 });
}

/** The moves out of the vertex with key `key` (none for an unknown key). */
export function movesFrom(adjacency: Adjacency, key: string): Move[] {
  // The library brands its keys; ours are the same strings.
  const entry = (adjacency as unknown as Readonly<Record<string, Adjacency[keyof Adjacency] | undefined>>)[key];
  return Object.values<Move>(entry?.transitions ?? {});
}

export function movesOf(graph: Graph, snapshot: AgentSnapshot): Move[] {
  return movesFrom(graph.adjacency, graph.serializeState(snapshot));
}

/**
 * All simple paths from `start` to every vertex, in one depth-first walk of the adjacency map, shaped as
 * `getSimplePaths` shapes them (a first step with `xstate.init`, then one step per event with the state it
 * led to). `getSimplePaths` finds the same set with one walk per target vertex, which costs the square of
 * the graph's size; the tests check that both agree wherever both are computed.
 */
export function simplePaths(adjacency: Adjacency, start: AgentSnapshot, key: (s: AgentSnapshot) => string): Path[] {
  const paths: Path[] = [];
  const steps: Path["steps"] = [{ state: start, event: { type: "xstate.init" } as unknown as AgentEvent }];
  const onPath = new Set<string>();
  const visit = (at: string, state: AgentSnapshot) => {
    onPath.add(at);
    paths.push({ state, steps: [...steps], weight: steps.length - 1 });
    for (const move of movesFrom(adjacency, at)) {
      const next = key(move.state);
      if (onPath.has(next)) continue;
      steps.push({ state: move.state, event: move.event });
      visit(next, move.state);
      steps.pop();
    }
    onPath.delete(at);
  };
  visit(key(start), start);
  return paths;
}

export function vertices(graph: Graph): AgentSnapshot[] {
  return Object.values(graph.adjacency).map((entry) => entry.state);
}

export function reachedFinals(graph: Graph): string[] {
  const values = vertices(graph)
    .filter((s) => s.status === "done")
    .map((s) => String(s.value));
  return [...new Set(values)].sort();
}

/** What the next model call would be sent, counted independently of the machine's O(1) bookkeeping. */
export function nextPromptTokens(snapshot: AgentSnapshot): number {
  return countTokens(snapshot.context.specs) + countTokens(messagesOf(snapshot.context.transcript));
}

/** A run's events in short: which calls each reply asked for, the decisions, the results, the cancel. */
export function outline(events: readonly AgentEvent[]): string[] {
  return events.map((e) => {
    if (e.type === "model.replied") {
      if (e.reply.finishReason === "refusal") return "refusal";
      return e.reply.toolCalls.map((c) => c.name).join("+") || "answer";
    }
    if (e.type === "approval.decided") return e.approved ? "approve" : "deny";
    return e.type === "tool.finished" ? "result" : "cancel";
  });
}

/** The events of a path, without the `xstate.init` that `getSimplePaths` puts first. */
export function eventsAlong(path: Path): AgentEvent[] {
  return path.steps.slice(1).map((step) => step.event);
}

export function modelReplies(events: readonly AgentEvent[]): number {
  return events.filter((event) => event.type === "model.replied").length;
}

/** Every snapshot along `events`, folded through the pure `transition()` from the start. */
export function fold(input: AgentMachineInput, events: readonly AgentEvent[]): AgentSnapshot[] {
  const snapshots = [initialTransition(agentMachine, input)[0]];
  for (const event of events) {
    const last = snapshots.at(-1);
    if (last !== undefined) snapshots.push(transition(agentMachine, last, event)[0]);
  }
  return snapshots;
}

/** The most a run ever needed to have spent plus the prompt it was about to send. */
export function peakNeed(snapshots: readonly AgentSnapshot[]): number {
  const needs = snapshots.filter((s) => s.value === "callingModel").map((s) => s.context.tokens + nextPromptTokens(s));
  return Math.max(...needs);
}

const budgets = new Map<string, number>();

/**
 * The budget that lets the cheapest `maxSteps`-call run reach the step limit and stops every dearer one: the
 * least, over the runs that reach the step limit, of what the run needs before its last call (spent + prompt).
 * That need only grows along a run, so a depth-first walk of the runs (the graph's events, less the cancels)
 * can drop every run as soon as it needs more than the cheapest full run found so far; states met again with
 * the same cost and need (the same calls finished in another order) are walked once.
 */
export function tightestStepLimitBudget(setup: Omit<Setup, "tokenBudget">): number {
  const key = JSON.stringify(setup);
  const known = budgets.get(key);
  if (known !== undefined) return known;
  const events = eventsFor({ ...setup, tokenBudget: HUGE_BUDGET });
  const seen = new Set<string>();
  let best = Number.POSITIVE_INFINITY;
  const walk = (s: AgentSnapshot, need: number) => {
    const at = `${keyOf(s, true)}${need}`;
    if (need >= best || seen.has(at)) return;
    seen.add(at);
    if (s.value === "stepLimit") best = need;
    for (const event of events(s)) {
      if (event.type === "run.cancelled") continue;
      const [next] = transition(agentMachine, s, event);
      walk(next, next.value === "callingModel" ? next.context.tokens + nextPromptTokens(next) : need);
    }
  };
  const [start] = initialTransition(agentMachine, inputOf({ ...setup, tokenBudget: HUGE_BUDGET }));
  walk(start, start.context.tokens + nextPromptTokens(start));
  budgets.set(key, best);
  return best;
}

/** For every repeat policy: no budget at all, and the budget that makes the budget and the step limit both reachable. */
export function setupsFor(maxSteps: number, base: Omit<Setup, "maxSteps" | "tokenBudget" | "policy"> = {}): Setup[] {
  return POLICIES.flatMap((policy) => [
    { ...base, maxSteps, tokenBudget: HUGE_BUDGET, policy },
    { ...base, maxSteps, tokenBudget: tightestStepLimitBudget({ ...base, maxSteps, policy }), policy },
  ]);
}

/** The graphs the tests walk: a family of setups and the depths (`maxSteps`) each is explored to. */
export interface Family {
  readonly name: string;
  readonly base: Omit<Setup, "maxSteps" | "tokenBudget" | "policy">;
  readonly depths: readonly number[];
}

/**
 * One call at a time (the behaviour of logs of schema 1) to six steps; replies whose calls run at
 * once (a decision awaited while a lookup runs, two lookups that may finish in either order) to
 * three steps, with every call at once and one at a time: their paths grow about seven-fold per
 * step where one at a time grows three-fold.
 */
export const FAMILIES: readonly Family[] = [
  { name: "one at a time", base: { toolConcurrency: 1 }, depths: [1, 2, 3, 4, 5, 6] },
  { name: "all at once", base: { menu: "parallel" }, depths: [1, 2, 3] },
  { name: "parallel replies, one at a time", base: { menu: "parallel", toolConcurrency: 1 }, depths: [1, 2, 3] },
];

/** Every family at every depth, as `[family name, maxSteps, family]` rows for `it.each`. */
export const DEPTHS: [string, number, Family][] = FAMILIES.flatMap((family) =>
  family.depths.map((maxSteps): [string, number, Family] => [family.name, maxSteps, family]),
);

/** The rows of `DEPTHS` up to four steps: the checks that step every path, or every state's every move, walk these. */
export const SHALLOW = DEPTHS.filter(([, maxSteps]) => maxSteps <= 4);
