import { type AdjacencyMap, getAdjacencyMap, getSimplePaths, type StatePath } from "@xstate/graph";
import { type ActorLogic, createActor, initialTransition, type SnapshotFrom, transition } from "xstate";
import {
  type AgentInput,
  agentMachine,
  asks,
  countTokens,
  type EffectRequest,
  final,
  ToolRegistry,
  toolCall,
} from "../src/index.js";
import { type AgentEvent, messagesOf } from "../src/machine.js";

export type AgentSnapshot = SnapshotFrom<typeof agentMachine>;
export type Path = StatePath<AgentSnapshot, AgentEvent>;
export type Adjacency = AdjacencyMap<AgentSnapshot, AgentEvent>;
export type Move = { readonly event: AgentEvent; readonly state: AgentSnapshot };

/**
 * The machine as `getAdjacencyMap` types its argument: @xstate/graph 3.0.4 leaves out the emitted
 * events' type parameter, so a machine that emits needs this widening. It is the same object.
 */
const graphLogic = agentMachine as unknown as ActorLogic<AgentSnapshot, AgentEvent, AgentInput>;

export const FINAL_STATES = ["done", "stepLimit", "tokenBudget", "repeatedCall", "cancelled"] as const;
export const HUGE_BUDGET = 1_000_000;
/** The one tool that needs approval in the graphs. */
export const RISKY = "send";

export const RUNNING = { executingTools: "runningTool" } as const;
export const AWAITING = { executingTools: "awaitingApproval" } as const;

function graphRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  const never = () => {
    throw new Error("graph traversal must not run a tool");
  };
  registry.register("lookup", "Looks a word up.", { type: "object", properties: { q: { type: "string" } } }, never);
  registry.register(RISKY, "Sends a message.", { type: "object", properties: { to: { type: "string" } } }, never, {
    needsApproval: true,
  });
  return registry;
}

/** What a graph explores: the limits and the repeat policy; `send` always needs approval. */
export interface Setup {
  readonly maxSteps: number;
  readonly tokenBudget: number;
  readonly onRepeatedCall?: "refuse" | "stop";
  readonly repeatLimit?: number;
}

/** The machine is only stepped purely here: a model that is called at all fails the test. */
export function inputOf({ maxSteps, tokenBudget, onRepeatedCall = "refuse", repeatLimit = 3 }: Setup): AgentInput {
  const model = () => {
    throw new Error("graph traversal must not call the model");
  };
  return {
    task: "How hot is Pune?",
    model,
    registry: graphRegistry(),
    maxSteps,
    tokenBudget,
    onRepeatedCall,
    repeatLimit,
  };
}

export const CANCEL: AgentEvent = { type: "run.cancelled" };

/**
 * The concrete events possible in each state. The model answers, or asks for `lookup {q: "a"}` (the same
 * call every time, so that a run of them repeats), or asks for `send` (which needs approval) and an unknown
 * tool in one reply. A decision approves or denies the call that waits; a tool finishes the call that runs.
 * The caller may cancel in every state that waits.
 */
export function eventsOf(snapshot: AgentSnapshot): AgentEvent[] {
  if (snapshot.status !== "active") return [];
  const next = snapshot.context.pendingCalls[0];
  if (snapshot.matches("callingModel")) {
    const n = snapshot.context.steps + 1;
    return [
      { type: "model.replied", reply: final(`answer ${n}`) },
      {
        type: "model.replied",
        reply: { content: `thought ${n}`, toolCalls: [toolCall(`s${n}`, "lookup", { q: "a" })] },
      },
      { type: "model.replied", reply: asks(toolCall(`a${n}`, RISKY, { to: "x" }), toolCall(`b${n}`, "nope")) },
      CANCEL,
    ];
  }
  if (next === undefined) return [];
  if (snapshot.matches(AWAITING)) {
    return [
      { type: "approval.decided", callId: next.id, approved: true },
      { type: "approval.decided", callId: next.id, approved: false, reason: "not now" },
      CANCEL,
    ];
  }
  if (snapshot.matches(RUNNING))
    return [{ type: "tool.finished", callId: next.id, content: `{"for":"${next.id}"}` }, CANCEL];
  return [];
}

const keys = new WeakMap<AgentSnapshot, string>();

/**
 * What decides a snapshot's future under `eventsOf`: the state, the step count, the pending calls (which
 * events come next), the decisions and the last call (repeat detection), and, when the budget can matter,
 * the tokens spent and the exact size of the message list (every later budget decision). Snapshots equal
 * in these behave alike, so merging them is sound and every path found can be replayed. With a budget no
 * run can reach, the cost is left out, and runs that differ only in what they spent share their vertices:
 * the graph stays small while its simple paths still enumerate every run. The default `serializeSnapshot`
 * cannot be used: it serializes `transcript.items`, the backing array that later steps push into.
 */
export function serializeState(snapshot: AgentSnapshot): string {
  const known = keys.get(snapshot);
  if (known !== undefined) return known;
  const { steps, pendingCalls, decisions, lastCall, tokens, transcript, tokenBudget } = snapshot.context;
  const parts: unknown[] = [snapshot.value, steps, pendingCalls.map((c) => c.id), decisions, lastCall];
  if (tokenBudget !== HUGE_BUDGET) parts.push(tokens, JSON.stringify(messagesOf(transcript)).length);
  const key = JSON.stringify(parts);
  keys.set(snapshot, key);
  return key;
}

export interface Graph {
  readonly setup: Setup;
  readonly input: AgentInput;
  readonly adjacency: Adjacency;
  /** Every simple path from the start, to every vertex (as `getSimplePaths` gives them). */
  readonly paths: Path[];
  /** `getSimplePaths`' own answer, for the graphs of up to four steps (it walks the whole graph once per vertex). */
  readonly libraryPaths: Path[] | null;
}

const graphs = new Map<string, Graph>();

export function explore(setup: Setup): Graph {
  const key = JSON.stringify(setup);
  const known = graphs.get(key);
  if (known !== undefined) return known;
  const input = inputOf(setup);
  const options = { input, events: eventsOf, serializeState, limit: 50_000 };
  const adjacency = getAdjacencyMap(graphLogic, options);
  const small = setup.maxSteps <= 4;
  const graph = {
    setup,
    input,
    adjacency,
    paths: simplePaths(adjacency, initialTransition(agentMachine, input)[0]),
    libraryPaths: small ? getSimplePaths(agentMachine, options) : null,
  };
  graphs.set(key, graph);
  return graph;
}

/** The moves out of the vertex with key `key` (none for an unknown key). */
export function movesFrom(adjacency: Adjacency, key: string): Move[] {
  // The library brands its keys; ours are the same strings.
  const entry = (adjacency as unknown as Readonly<Record<string, Adjacency[keyof Adjacency] | undefined>>)[key];
  return Object.values<Move>(entry?.transitions ?? {});
}

/**
 * All simple paths from `start` to every vertex, in one depth-first walk of the adjacency map, shaped as
 * `getSimplePaths` shapes them (a first step with `xstate.init`, then one step per event with the state it
 * led to). `getSimplePaths` finds the same set with one walk per target vertex, which costs the square of
 * the graph's size; the tests check that both agree wherever both are computed.
 */
export function simplePaths(adjacency: Adjacency, start: AgentSnapshot): Path[] {
  const paths: Path[] = [];
  const steps: Path["steps"] = [{ state: start, event: { type: "xstate.init" } as unknown as AgentEvent }];
  const onPath = new Set<string>();
  const visit = (key: string, state: AgentSnapshot) => {
    onPath.add(key);
    paths.push({ state, steps: [...steps], weight: steps.length - 1 });
    for (const move of movesFrom(adjacency, key)) {
      const next = serializeState(move.state);
      if (onPath.has(next)) continue;
      steps.push({ state: move.state, event: move.event });
      visit(next, move.state);
      steps.pop();
    }
    onPath.delete(key);
  };
  visit(serializeState(start), start);
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

/** The events of a path, without the `xstate.init` that `getSimplePaths` puts first. */
export function eventsAlong(path: Path): AgentEvent[] {
  return path.steps.slice(1).map((step) => step.event);
}

export function modelReplies(events: readonly AgentEvent[]): number {
  return events.filter((event) => event.type === "model.replied").length;
}

/** Every snapshot along `events`, folded through the pure `transition()` from the start. */
export function fold(input: AgentInput, events: readonly AgentEvent[]): AgentSnapshot[] {
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

export const POLICIES = ["refuse", "stop"] as const;

const budgets = new Map<string, number>();

/**
 * The budget that lets the cheapest `maxSteps`-call run reach the step limit and stops every dearer one: the
 * least, over the runs that reach the step limit, of what the run needs before its last call (spent + prompt).
 * That need only grows along a run, so a depth-first walk of the runs (the graph's events, less the cancels)
 * can drop every run as soon as it needs more than the cheapest full run found so far.
 */
export function tightestStepLimitBudget(setup: Omit<Setup, "tokenBudget">): number {
  const key = JSON.stringify(setup);
  const known = budgets.get(key);
  if (known !== undefined) return known;
  let best = Number.POSITIVE_INFINITY;
  const walk = (s: AgentSnapshot, need: number) => {
    if (need >= best) return;
    if (s.value === "stepLimit") best = need;
    for (const event of eventsOf(s)) {
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

/** For both repeat policies: no budget at all, and the budget that makes the budget and the step limit both reachable. */
export function setupsFor(maxSteps: number): Setup[] {
  return POLICIES.flatMap((onRepeatedCall) => [
    { maxSteps, tokenBudget: HUGE_BUDGET, onRepeatedCall },
    { maxSteps, tokenBudget: tightestStepLimitBudget({ maxSteps, onRepeatedCall }), onRepeatedCall },
  ]);
}

export interface ActorRun {
  readonly requests: EffectRequest[];
  /** How many requests were made by the start (index 0) and after each event (index i + 1). */
  readonly requestsAt: number[];
  readonly entries: { readonly source: string; readonly target: string }[];
  readonly snapshot: AgentSnapshot;
}

/** Runs events through a started actor of the real machine, recording what it emits and nobody performs. */
export function runInActor(input: AgentInput, events: readonly AgentEvent[]): ActorRun {
  const requests: EffectRequest[] = [];
  const entries: { source: string; target: string }[] = [];
  const actor = createActor(agentMachine, {
    input,
    inspect: (inspection) => {
      if (inspection.type !== "@xstate.microstep") return;
      for (const t of inspection._transitions) {
        for (const target of t.target ?? []) entries.push({ source: t.source.key, target: target.key });
      }
    },
  });
  actor.on("*", (request) => {
    requests.push(request);
  });
  actor.start();
  const requestsAt = [requests.length];
  for (const event of events) {
    actor.send(event);
    requestsAt.push(requests.length);
  }
  const snapshot = actor.getSnapshot();
  actor.stop();
  return { requests, requestsAt, entries, snapshot };
}
