import { type AdjacencyMap, getAdjacencyMap, getSimplePaths, getStateNodes, type StatePath } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import {
  type AnyTransitionDefinition,
  createActor,
  type EmittedFrom,
  type EventFromLogic,
  fromCallback,
  type InputFrom,
  initialTransition,
  type SnapshotFrom,
  transition,
} from "xstate";
import {
  type AgentEvent,
  type AgentInput,
  agentMachine,
  asks,
  countTokens,
  type EffectRequest,
  final,
  messagesOf,
  ToolRegistry,
  toolCall,
} from "../src/index.js";

type AgentSnapshot = SnapshotFrom<typeof agentMachine>;
type Path = StatePath<AgentSnapshot, AgentEvent>;
type Adjacency = AdjacencyMap<AgentSnapshot, AgentEvent>;
type Move = { readonly event: AgentEvent; readonly state: AgentSnapshot };
/** The effects actor's logic type, as `provide` expects it (its request, input and event types). */
type EffectsLogic = NonNullable<NonNullable<Parameters<typeof agentMachine.provide>[0]["actors"]>["runEffects"]>;

const FINAL_STATES = ["done", "stepLimit", "tokenBudget"] as const;
const HUGE_BUDGET = 1_000_000;

function lookupRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register("lookup", "Looks a word up.", { type: "object", properties: { q: { type: "string" } } }, () => {
    throw new Error("graph traversal must not run a tool");
  });
  return registry;
}

/** The machine is only stepped purely here: a model that is called at all fails the test. */
function inputOf(maxSteps: number, tokenBudget: number): AgentInput {
  const model = () => {
    throw new Error("graph traversal must not call the model");
  };
  return { task: "How hot is Pune?", model, registry: lookupRegistry(), maxSteps, tokenBudget };
}

/** The concrete events possible in each state: three kinds of reply, or the result of the next pending call. */
function eventsOf(snapshot: AgentSnapshot): AgentEvent[] {
  if (snapshot.status !== "active") return [];
  if (snapshot.value === "callingModel") {
    const n = snapshot.context.steps + 1;
    return [
      { type: "model.replied", reply: final(`answer ${n}`) },
      {
        type: "model.replied",
        reply: { content: `thought ${n}`, toolCalls: [toolCall(`s${n}`, "lookup", { q: "a" })] },
      },
      { type: "model.replied", reply: asks(toolCall(`a${n}`, "lookup", { q: "b" }), toolCall(`b${n}`, "nope")) },
    ];
  }
  const next = snapshot.context.pendingCalls[0];
  return next === undefined ? [] : [{ type: "tool.finished", callId: next.id, content: `{"for":"${next.id}"}` }];
}

/**
 * What decides a snapshot's future under `eventsOf`: the state, the step count and pending call ids (which
 * events come next), the tokens spent and the exact size of the message list (every later budget decision).
 * Snapshots equal in these behave alike, so merging them is sound and every path found can be replayed;
 * the step limit bounds the space. A coarser key (a bucket of tokens) merges snapshots whose budget
 * decisions or pending ids differ, and the paths through them then do not replay. The default
 * `serializeSnapshot` cannot be used either: it serializes `transcript.items`, the backing array that
 * later steps push into, so a snapshot's key changes once the graph has stepped past it.
 */
function serializeState(snapshot: AgentSnapshot): string {
  const { steps, pendingCalls, tokens, transcript } = snapshot.context;
  const size = JSON.stringify(messagesOf(transcript)).length;
  return JSON.stringify([snapshot.value, steps, pendingCalls.map((c) => c.id), tokens, size]);
}

interface Graph {
  readonly input: AgentInput;
  readonly adjacency: Adjacency;
  readonly paths: Path[];
}

const graphs = new Map<string, Graph>();

function explore(maxSteps: number, tokenBudget: number): Graph {
  const key = `${maxSteps}/${tokenBudget}`;
  const known = graphs.get(key);
  if (known !== undefined) return known;
  const input = inputOf(maxSteps, tokenBudget);
  const options = { input, events: eventsOf, serializeState, limit: 20_000 };
  const graph = {
    input,
    adjacency: getAdjacencyMap(agentMachine, options),
    paths: getSimplePaths(agentMachine, options),
  };
  graphs.set(key, graph);
  return graph;
}

function vertices(graph: Graph): AgentSnapshot[] {
  return Object.values(graph.adjacency).map((entry) => entry.state);
}

function reachedFinals(graph: Graph): string[] {
  const values = vertices(graph)
    .filter((s) => s.status === "done")
    .map((s) => String(s.value));
  return [...new Set(values)].sort();
}

/** What the next model call would be sent, counted independently of the machine's O(1) bookkeeping. */
function nextPromptTokens(snapshot: AgentSnapshot): number {
  return countTokens(snapshot.context.specs) + countTokens(messagesOf(snapshot.context.transcript));
}

/** The events of a path, without the `xstate.init` that `getSimplePaths` puts first. */
function eventsAlong(path: Path): AgentEvent[] {
  return path.steps.slice(1).map((step) => step.event);
}

function modelReplies(events: readonly AgentEvent[]): number {
  return events.filter((event) => event.type === "model.replied").length;
}

/** Every snapshot along `events`, folded through the pure `transition()` from the start. */
function fold(input: AgentInput, events: readonly AgentEvent[]): AgentSnapshot[] {
  const snapshots = [initialTransition(agentMachine, input)[0]];
  for (const event of events) {
    const last = snapshots.at(-1);
    if (last !== undefined) snapshots.push(transition(agentMachine, last, event)[0]);
  }
  return snapshots;
}

/** The most a run ever needed to have spent plus the prompt it was about to send. */
function peakNeed(snapshots: readonly AgentSnapshot[]): number {
  const needs = snapshots.filter((s) => s.value === "callingModel").map((s) => s.context.tokens + nextPromptTokens(s));
  return Math.max(...needs);
}

const budgets = new Map<number, number>();

/** The budget that lets the cheapest `maxSteps`-call run reach the step limit and stops every dearer one. */
function tightestStepLimitBudget(maxSteps: number): number {
  const known = budgets.get(maxSteps);
  if (known !== undefined) return known;
  const { input, paths } = explore(maxSteps, HUGE_BUDGET);
  const peaks = paths.filter((p) => p.state.value === "stepLimit").map((p) => peakNeed(fold(input, eventsAlong(p))));
  const budget = Math.min(...peaks);
  budgets.set(maxSteps, budget);
  return budget;
}

/** No budget at all, and the budget that makes all three exits reachable. */
function budgetsFor(maxSteps: number): number[] {
  return [HUGE_BUDGET, tightestStepLimitBudget(maxSteps)];
}

describe("agentMachine structure", () => {
  const root = agentMachine.root;
  const nodes = getStateNodes(root);
  const transitionsOf = (node: (typeof nodes)[number]): AnyTransitionDefinition[] => [
    ...[...node.transitions.values()].flat(),
    ...(node.always ?? []),
  ];
  const keys = (targets: AnyTransitionDefinition["target"]) => (targets ?? []).map((n) => n.key);

  it("starts in budgetCheck and has exactly the six designed states", () => {
    expect(root.initial.target.map((n) => n.key)).toEqual(["budgetCheck"]);
    expect(Object.keys(root.states).sort()).toEqual(
      ["budgetCheck", "callingModel", "done", "executingTools", "stepLimit", "tokenBudget"].sort(),
    );
    expect(nodes.filter((n) => n.type === "final").map((n) => n.key)).toEqual([...FINAL_STATES]);
  });

  it("enters callingModel only from budgetCheck", () => {
    const all = [root, ...nodes].flatMap(transitionsOf);
    const intoCallingModel = all.filter((t) => keys(t.target).includes("callingModel"));
    expect(intoCallingModel.length).toBeGreaterThan(0);
    for (const t of intoCallingModel) expect(t.source.key).toBe("budgetCheck");
  });

  it("budgetCheck decides with eventless transitions only: step limit, then budget, then the call", () => {
    const budgetCheck = root.states.budgetCheck;
    expect(budgetCheck).toBeDefined();
    if (budgetCheck === undefined) return;
    expect([...budgetCheck.transitions.keys()]).toEqual([]);
    expect((budgetCheck.always ?? []).map((t) => [keys(t.target), t.guard])).toEqual([
      [["stepLimit"], "isStepLimitReached"],
      [["tokenBudget"], "isOverBudget"],
      [["callingModel"], undefined],
    ]);
  });

  it("final states have no way out and every other state has one", () => {
    for (const node of nodes) {
      expect(transitionsOf(node).length > 0, node.key).toBe(node.type !== "final");
    }
  });
});

describe("agentMachine graph", () => {
  it("reaches done and stepLimit, never tokenBudget, when the budget is no constraint", () => {
    expect(reachedFinals(explore(3, HUGE_BUDGET))).toEqual(["done", "stepLimit"]);
  });

  it("reaches tokenBudget and done, never stepLimit, when the budget runs out before the step limit", () => {
    // Three one-call steps fit, a fourth prompt does not.
    const graph = explore(3, HUGE_BUDGET);
    const oneCall = (e: AgentEvent) => e.type !== "model.replied" || e.reply.toolCalls.length === 1;
    const path = graph.paths.find((p) => p.state.value === "stepLimit" && eventsAlong(p).every(oneCall));
    expect(path).toBeDefined();
    const budget = path === undefined ? 0 : (fold(graph.input, eventsAlong(path)).at(-1)?.context.tokens ?? 0);
    expect(budget).toBeGreaterThan(0);
    const tight = explore(6, budget);
    expect(reachedFinals(tight)).toEqual(["done", "tokenBudget"]);
    const stopped = vertices(tight).filter((s) => s.value === "tokenBudget");
    expect(Math.min(...stopped.map((s) => s.context.steps))).toBeGreaterThan(0);
    expect(Math.max(...stopped.map((s) => s.context.steps))).toBeLessThanOrEqual(3);
  });

  it("reaches all three exits in one graph with a budget that only the cheapest full run fits", () => {
    const budget = tightestStepLimitBudget(3);
    const graph = explore(3, budget);
    expect(reachedFinals(graph)).toEqual(["done", "stepLimit", "tokenBudget"]);
    // The cheapest run fits the budget exactly: one token less and no run reaches the step limit.
    expect(reachedFinals(explore(3, budget - 1))).toEqual(["done", "tokenBudget"]);
  });

  it("stops at once with maxSteps 0 (stepLimit) or a budget too small for the first prompt (tokenBudget)", () => {
    const [noSteps] = initialTransition(agentMachine, inputOf(0, 0));
    expect([noSteps.value, noSteps.context.steps, noSteps.output?.status]).toEqual(["stepLimit", 0, "step_limit"]);
    const [noBudget] = initialTransition(agentMachine, inputOf(3, 0));
    expect([noBudget.value, noBudget.context.steps, noBudget.output?.status]).toEqual([
      "tokenBudget",
      0,
      "token_budget",
    ]);
    const graph = explore(3, 0);
    expect(graph.paths.map((p) => [p.state.value, p.steps.length])).toEqual([["tokenBudget", 1]]);
  });

  it.each([1, 2, 3, 4, 5, 6])("maxSteps %i: no path makes more model calls than maxSteps", (maxSteps) => {
    for (const budget of budgetsFor(maxSteps)) {
      const { paths } = explore(maxSteps, budget);
      for (const path of paths) {
        let calls = 0;
        for (const step of path.steps) {
          if (step.event.type === "model.replied") calls += 1;
          expect(calls).toBeLessThanOrEqual(maxSteps);
          expect(step.state.context.steps).toBe(calls);
        }
        if (path.state.value === "stepLimit") expect(calls).toBe(maxSteps);
        if (path.state.value === "tokenBudget") expect(calls).toBeLessThan(maxSteps);
        if (path.state.value === "done") {
          const last = path.steps.at(-1)?.event;
          expect(last?.type === "model.replied" && last.reply.toolCalls.length === 0).toBe(true);
        }
      }
      if (budget === HUGE_BUDGET) {
        // Every branch was walked: two tool-asking replies per step, one final reply per step.
        const ends = (value: string) => paths.filter((p) => p.state.value === value).length;
        expect(ends("stepLimit")).toBe(2 ** maxSteps);
        expect(ends("done")).toBe(2 ** maxSteps - 1);
        expect(ends("tokenBudget")).toBe(0);
      } else {
        // With one step every run sends the same first prompt, so the budget cannot tell runs apart.
        const exits = maxSteps === 1 ? ["done", "stepLimit"] : ["done", "stepLimit", "tokenBudget"];
        expect(reachedFinals(explore(maxSteps, budget))).toEqual(exits);
      }
    }
  });

  it.each([1, 3, 6])(
    "maxSteps %i: budgetCheck lets a call through only when it fits, and stops it otherwise",
    (maxSteps) => {
      for (const budget of budgetsFor(maxSteps)) {
        for (const s of vertices(explore(maxSteps, budget))) {
          const next = s.context.tokens + nextPromptTokens(s);
          if (s.value === "callingModel") {
            expect(s.context.steps).toBeLessThan(maxSteps);
            expect(next).toBeLessThanOrEqual(budget);
          }
          if (s.value === "tokenBudget") expect(next).toBeGreaterThan(budget);
          if (s.value === "stepLimit") expect(s.context.steps).toBe(maxSteps);
        }
      }
    },
  );

  it.each([1, 2, 3, 4, 5, 6])("maxSteps %i: no dead ends, and every state can still reach an exit", (maxSteps) => {
    for (const budget of budgetsFor(maxSteps)) {
      const { adjacency } = explore(maxSteps, budget);
      const canExit = new Set<string>();
      const entries = Object.entries(adjacency);
      for (const [key, { state, transitions }] of entries) {
        const moves = Object.values<Move>(transitions).filter((t) => serializeState(t.state) !== key);
        if (state.status === "done") {
          expect(FINAL_STATES).toContain(state.value);
          expect(eventsOf(state)).toEqual([]);
          canExit.add(key);
        } else {
          // budgetCheck is transient: a settled snapshot is never in it.
          expect(["callingModel", "executingTools"]).toContain(state.value);
          expect(moves.length, `dead end at ${key}`).toBeGreaterThan(0);
        }
      }
      // Backward closure: a state can exit if one of its moves leads to a state that can.
      for (let changed = true; changed; ) {
        changed = false;
        for (const [key, { transitions }] of entries) {
          if (canExit.has(key)) continue;
          if (Object.values<Move>(transitions).some((t) => canExit.has(serializeState(t.state)))) {
            canExit.add(key);
            changed = true;
          }
        }
      }
      expect(canExit.size).toBe(entries.length);
    }
  });

  it("ignores events that do not fit the state: no hidden edges", () => {
    for (const s of vertices(explore(3, HUGE_BUDGET))) {
      const stray: AgentEvent[] = [
        { type: "tool.finished", callId: "not-pending", content: "x" },
        ...(s.value === "callingModel" ? [] : [{ type: "model.replied", reply: final("late") } as const]),
      ];
      if (s.value === "executingTools" && s.context.pendingCalls.length > 1) {
        // The second call's result cannot overtake the first's.
        const second = s.context.pendingCalls[1];
        if (second !== undefined) stray.push({ type: "tool.finished", callId: second.id, content: "early" });
      }
      for (const event of stray) {
        const [next] = transition(agentMachine, s, event);
        expect(next.value).toEqual(s.value);
        expect(next.context).toBe(s.context);
      }
    }
  });
});

interface Replay {
  readonly requests: EffectRequest[];
  readonly entries: { readonly source: string; readonly target: string }[];
  readonly snapshot: AgentSnapshot;
}

/** Runs a path's events through a started actor of the real machine whose effects actor only records requests. */
function replay(input: AgentInput, events: readonly AgentEvent[]): Replay {
  const requests: EffectRequest[] = [];
  const entries: { source: string; target: string }[] = [];
  const recorder = fromCallback<EventFromLogic<EffectsLogic>, InputFrom<EffectsLogic>, EmittedFrom<EffectsLogic>>(
    ({ receive }) => {
      receive((request) => {
        if (request.type === "callModel" || request.type === "runTools") requests.push(request);
      });
    },
  );
  const actor = createActor(agentMachine.provide({ actors: { runEffects: recorder } }), {
    input,
    inspect: (inspection) => {
      if (inspection.type !== "@xstate.microstep") return;
      for (const t of inspection._transitions) {
        for (const target of t.target ?? []) entries.push({ source: t.source.key, target: target.key });
      }
    },
  });
  actor.start();
  for (const event of events) actor.send(event);
  const snapshot = actor.getSnapshot();
  actor.stop();
  return { requests, entries, snapshot };
}

describe("agentMachine replayed in a running actor", () => {
  it.each([1, 2, 3, 4, 5, 6])(
    "maxSteps %i: callingModel is entered only from budgetCheck, at most maxSteps times",
    (maxSteps) => {
      for (const budget of budgetsFor(maxSteps)) {
        const { input, paths } = explore(maxSteps, budget);
        // Paths to the exits cover every other path as a prefix (no dead ends, checked above).
        const complete = paths.filter((p) => p.state.status === "done");
        expect(complete.length).toBeGreaterThan(0);
        for (const path of complete) {
          const events = eventsAlong(path);
          const { requests, entries, snapshot } = replay(input, events);
          const calls = requests.filter((r) => r.type === "callModel");
          const intoCallingModel = entries.filter((e) => e.target === "callingModel");

          expect(intoCallingModel.every((e) => e.source === "budgetCheck")).toBe(true);
          expect(entries.filter((e) => e.target === "budgetCheck").every((e) => e.source === "executingTools")).toBe(
            true,
          );
          expect(intoCallingModel.length).toBe(calls.length);
          expect(calls.length).toBe(modelReplies(events));
          expect(calls.length).toBeLessThanOrEqual(maxSteps);
          expect(calls.map((r) => r.step)).toEqual(calls.map((_, i) => i + 1));
          expect(requests.filter((r) => r.type === "runTools").length).toBe(
            events.filter((e) => e.type === "model.replied" && e.reply.toolCalls.length > 0).length,
          );
          expect(snapshot.value).toEqual(path.state.value);
          expect(snapshot.status).toBe("done");
          expect(snapshot.context.steps).toBe(path.state.context.steps);
        }
      }
    },
  );

  it("a replayed path that exits gives the same output as folding its events through transition()", () => {
    const { input, paths } = explore(3, tightestStepLimitBudget(3));
    for (const path of paths.filter((p) => p.state.status === "done")) {
      const events = eventsAlong(path);
      const folded = fold(input, events).at(-1);
      expect(folded?.status).toBe("done");
      expect(replay(input, events).snapshot.output).toEqual(folded?.output);
    }
  });
});
