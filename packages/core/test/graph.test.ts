import { getStateNodes } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import { type AnyTransitionDefinition, initialTransition, transition } from "xstate";
import { agentMachine, final } from "../src/index.js";
import type { AgentEvent } from "../src/machine.js";
import {
  AWAITING,
  eventsAlong,
  eventsOf,
  explore,
  FINAL_STATES,
  fold,
  type Graph,
  HUGE_BUDGET,
  inputOf,
  type Move,
  modelReplies,
  nextPromptTokens,
  type Path,
  POLICIES,
  peakNeed,
  RISKY,
  RUNNING,
  reachedFinals,
  runInActor,
  type Setup,
  serializeState,
  setupsFor,
  tightestStepLimitBudget,
  vertices,
} from "./agent-graph.js";
import { traceProblem } from "./trace.js";

type Ends = Record<"stepLimit" | "done" | "repeatedCall" | "cancelled" | "tokenBudget", number>;

/**
 * How many runs end in each final state when the budget is no constraint, counted from the rules, not the
 * machine: every step the model answers, or asks for `lookup` again (the `repeatLimit`-th such call in a
 * row is refused, or stops the run), or asks for `send` and `nope` (`send` approved or denied). The caller
 * may cancel whenever the run waits: for the model, for a decision, for a tool.
 */
function expectedEnds({ maxSteps, onRepeatedCall = "refuse", repeatLimit = 3 }: Setup): Ends {
  const ends: Ends = { stepLimit: 0, done: 0, repeatedCall: 0, cancelled: 0, tokenBudget: 0 };
  const step = (k: number, lookupsInARow: number) => {
    if (k === maxSteps) {
      ends.stepLimit += 1;
      return;
    }
    ends.cancelled += 1; // while the model is called
    ends.done += 1;
    if (lookupsInARow > 0 && lookupsInARow + 1 >= repeatLimit) {
      if (onRepeatedCall === "stop") ends.repeatedCall += 1;
      else step(k + 1, lookupsInARow + 1);
    } else {
      ends.cancelled += 1; // while lookup runs
      step(k + 1, lookupsInARow + 1);
    }
    // send waits for a decision; approved, send runs, then nope runs; denied, nope runs.
    ends.cancelled += 1 + 2 + 1;
    step(k + 1, 0);
    step(k + 1, 0);
  };
  step(0, 0);
  return ends;
}

function endsOf(paths: readonly Path[]): Ends {
  const ends: Ends = { stepLimit: 0, done: 0, repeatedCall: 0, cancelled: 0, tokenBudget: 0 };
  for (const p of paths) if (p.state.status === "done") ends[p.state.value as keyof Ends] += 1;
  return ends;
}

/** What is wrong with a path's model calls: more than maxSteps, steps that do not count them, a wrong exit. */
function callProblems(path: Path, maxSteps: number): string[] {
  const problems: string[] = [];
  const where = () => JSON.stringify(eventsAlong(path).map((e) => e.type));
  let calls = 0;
  for (const step of path.steps) {
    if (step.event.type === "model.replied") calls += 1;
    if (calls > maxSteps) problems.push(`${calls} model calls along ${where()}`);
    if (step.state.context.steps !== calls) problems.push(`steps ${step.state.context.steps} after ${calls} calls`);
  }
  const end = path.state.value;
  const last = path.steps.at(-1)?.event;
  const ok =
    (end === "stepLimit" && calls === maxSteps) ||
    (end === "tokenBudget" && calls < maxSteps) ||
    (end === "done" && last?.type === "model.replied" && last.reply.toolCalls.length === 0) ||
    (end === "cancelled" && last?.type === "run.cancelled") ||
    (end === "repeatedCall" && last?.type !== "run.cancelled") ||
    path.state.status === "active";
  if (!ok) problems.push(`${String(end)} after ${calls} calls along ${where()}`);
  return problems;
}

describe("agentMachine structure", () => {
  const root = agentMachine.root;
  const nodes = getStateNodes(root);
  const transitionsOf = (node: typeof root): AnyTransitionDefinition[] => [
    ...[...node.transitions.values()].flat(),
    ...(node.always ?? []),
  ];
  const keys = (targets: AnyTransitionDefinition["target"]) => (targets ?? []).map((n) => n.key);

  it("starts in budgetCheck and has exactly the designed states", () => {
    expect(root.initial.target.map((n) => n.key)).toEqual(["budgetCheck"]);
    expect(Object.keys(root.states).sort()).toEqual(
      ["budgetCheck", "callingModel", "executingTools", ...FINAL_STATES].sort(),
    );
    expect(Object.keys(root.states.executingTools?.states ?? {}).sort()).toEqual(
      ["awaitingApproval", "nextCall", "runningTool"].sort(),
    );
    expect(root.states.executingTools?.initial.target.map((n) => n.key)).toEqual(["nextCall"]);
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

  it("final states have no way out and every other state has one; run.cancelled is the root's, for every state", () => {
    for (const node of nodes) {
      // A compound state's way out is its children's; the root's run.cancelled is everyone's.
      const own = transitionsOf(node).length > 0 || node.type === "compound";
      expect(own, node.key).toBe(node.type !== "final");
    }
    expect(root.states.executingTools?.states.awaitingApproval?.always?.length).toBe(1);
    const cancels = [root, ...nodes].flatMap(transitionsOf).filter((t) => t.eventType === "run.cancelled");
    expect(cancels.map((t) => [t.source.key, keys(t.target)])).toEqual([["agent", ["cancelled"]]]);
  });
});

describe("agentMachine graph", () => {
  it("reaches done, stepLimit and cancelled, never tokenBudget or repeatedCall, when nothing else can stop it", () => {
    expect(reachedFinals(explore({ maxSteps: 3, tokenBudget: HUGE_BUDGET }))).toEqual([
      "cancelled",
      "done",
      "stepLimit",
    ]);
  });

  it("reaches tokenBudget and done, never stepLimit, when the budget runs out before the step limit", () => {
    // Three one-call steps fit, a fourth prompt does not.
    const graph = explore({ maxSteps: 3, tokenBudget: HUGE_BUDGET });
    const oneCall = (e: AgentEvent) => e.type !== "model.replied" || e.reply.toolCalls.length === 1;
    const path = graph.paths.find((p) => p.state.value === "stepLimit" && eventsAlong(p).every(oneCall));
    expect(path).toBeDefined();
    const budget = path === undefined ? 0 : (fold(graph.input, eventsAlong(path)).at(-1)?.context.tokens ?? 0);
    expect(budget).toBeGreaterThan(0);
    const tight = explore({ maxSteps: 6, tokenBudget: budget });
    expect(reachedFinals(tight)).toEqual(["cancelled", "done", "tokenBudget"]);
    const stopped = vertices(tight).filter((s) => s.value === "tokenBudget");
    expect(Math.min(...stopped.map((s) => s.context.steps))).toBeGreaterThan(0);
    expect(Math.max(...stopped.map((s) => s.context.steps))).toBeLessThanOrEqual(3);
  });

  it("reaches every exit but repeatedCall with a budget that only the cheapest full run fits", () => {
    const budget = tightestStepLimitBudget({ maxSteps: 3 });
    expect(reachedFinals(explore({ maxSteps: 3, tokenBudget: budget }))).toEqual([
      "cancelled",
      "done",
      "stepLimit",
      "tokenBudget",
    ]);
    // The cheapest run fits the budget exactly: one token less and no run reaches the step limit.
    expect(reachedFinals(explore({ maxSteps: 3, tokenBudget: budget - 1 }))).toEqual([
      "cancelled",
      "done",
      "tokenBudget",
    ]);
  });

  it("stops at once with maxSteps 0 (stepLimit) or a budget too small for the first prompt (tokenBudget)", () => {
    const [noSteps] = initialTransition(agentMachine, inputOf({ maxSteps: 0, tokenBudget: 0 }));
    expect([noSteps.value, noSteps.context.steps, noSteps.output?.status]).toEqual(["stepLimit", 0, "step_limit"]);
    const [noBudget] = initialTransition(agentMachine, inputOf({ maxSteps: 3, tokenBudget: 0 }));
    expect([noBudget.value, noBudget.context.steps, noBudget.output?.status]).toEqual([
      "tokenBudget",
      0,
      "token_budget",
    ]);
    const graph = explore({ maxSteps: 3, tokenBudget: 0 });
    expect(graph.paths.map((p) => [p.state.value, p.steps.length])).toEqual([["tokenBudget", 1]]);
  });

  it("our one-walk simple paths are exactly getSimplePaths', wherever the library's are computed", () => {
    let compared = 0;
    for (const maxSteps of [1, 2, 3, 4, 5, 6]) {
      for (const graph of setupsFor(maxSteps).map(explore)) {
        if (graph.libraryPaths === null) continue;
        const signature = (p: Path) => JSON.stringify([eventsAlong(p), serializeState(p.state)]);
        expect(graph.paths.map(signature).sort()).toEqual(graph.libraryPaths.map(signature).sort());
        compared += 1;
      }
    }
    expect(compared).toBe(16);
  }, 30_000);

  it.each([1, 2, 3, 4, 5, 6])("maxSteps %i: no path makes more model calls than maxSteps", (maxSteps) => {
    for (const setup of setupsFor(maxSteps)) {
      const { paths } = explore(setup);
      // Problems are collected, not asserted one by one: there are thousands of paths.
      const problems = paths.flatMap((path) => callProblems(path, maxSteps));
      expect(problems).toEqual([]);
      if (setup.tokenBudget === HUGE_BUDGET) {
        // Every branch was walked: as many runs end in each exit as the rules say.
        expect(endsOf(paths)).toEqual(expectedEnds(setup));
      } else {
        // With one step every run sends the same first prompt, so the budget cannot tell runs apart.
        const exits = ["cancelled", "done", "stepLimit", ...(maxSteps === 1 ? [] : ["tokenBudget"])];
        if (setup.onRepeatedCall === "stop" && maxSteps >= 3) exits.push("repeatedCall");
        expect(reachedFinals(explore(setup))).toEqual(exits.sort());
      }
    }
  });

  it.each([1, 3, 6])(
    "maxSteps %i: budgetCheck lets a call through only when it fits, and stops it otherwise",
    (maxSteps) => {
      for (const setup of setupsFor(maxSteps)) {
        for (const s of vertices(explore(setup))) {
          const next = s.context.tokens + nextPromptTokens(s);
          if (s.value === "callingModel") {
            expect(s.context.steps).toBeLessThan(maxSteps);
            expect(next).toBeLessThanOrEqual(setup.tokenBudget);
          }
          if (s.value === "tokenBudget") expect(next).toBeGreaterThan(setup.tokenBudget);
          if (s.value === "stepLimit") expect(s.context.steps).toBe(maxSteps);
        }
      }
    },
  );

  it.each([1, 2, 3, 4, 5, 6])(
    "maxSteps %i: no dead ends; every state can exit without being cancelled, and can be cancelled",
    (maxSteps) => {
      for (const setup of setupsFor(maxSteps)) {
        const { adjacency } = explore(setup);
        const canExit = new Set<string>();
        const entries = Object.entries(adjacency);
        for (const [key, { state, transitions }] of entries) {
          const moves = Object.values<Move>(transitions).filter((t) => serializeState(t.state) !== key);
          if (state.status === "done") {
            expect(FINAL_STATES).toContain(state.value);
            expect(eventsOf(state)).toEqual([]);
            canExit.add(key);
            continue;
          }
          // budgetCheck and nextCall are transient: a settled snapshot is never in them.
          const settled = state.value === "callingModel" || state.matches(AWAITING) || state.matches(RUNNING);
          expect(settled, key).toBe(true);
          expect(moves.length, `dead end at ${key}`).toBeGreaterThan(0);
          // awaitingApproval is a wait, not an end: a decision either way moves it on.
          if (state.matches(AWAITING)) expect(moves.filter((m) => m.event.type === "approval.decided").length).toBe(2);
          const cancelled = moves.find((m) => m.event.type === "run.cancelled")?.state;
          expect(cancelled?.value).toBe("cancelled");
          expect(cancelled?.output?.status).toBe("cancelled");
          expect(traceProblem(cancelled?.output?.messages ?? [])).toBeNull();
          if (state.value === "callingModel") {
            const answered = moves.find(
              (m) => m.event.type === "model.replied" && m.event.reply.toolCalls.length === 0,
            );
            expect(answered?.state.value).toBe("done");
            expect(answered?.state.output?.answer).toBe(`answer ${state.context.steps + 1}`);
            expect(traceProblem(answered?.state.output?.messages ?? [])).toBeNull();
          }
        }
        // Backward closure over the moves that are not a cancellation.
        for (let changed = true; changed; ) {
          changed = false;
          for (const [key, { transitions }] of entries) {
            if (canExit.has(key)) continue;
            const moves = Object.values<Move>(transitions).filter((t) => t.event.type !== "run.cancelled");
            if (moves.some((t) => canExit.has(serializeState(t.state)))) {
              canExit.add(key);
              changed = true;
            }
          }
        }
        expect(canExit.size).toBe(entries.length);
      }
    },
  );

  it("ignores events that do not fit the state: no hidden edges", () => {
    for (const setup of setupsFor(3)) {
      for (const s of vertices(explore(setup))) {
        const pending = s.context.pendingCalls;
        const stray: AgentEvent[] = [
          { type: "tool.finished", callId: "not-pending", content: "x" },
          ...(s.value === "callingModel" ? [] : [{ type: "model.replied", reply: final("late") } as const]),
        ];
        // A result cannot overtake the call before it, nor answer a call that waits for a decision.
        if (pending.length > 1 && pending[1] !== undefined && s.matches(RUNNING)) {
          stray.push({ type: "tool.finished", callId: pending[1].id, content: "early" });
        }
        if (s.matches(AWAITING) && pending[0] !== undefined) {
          stray.push({ type: "tool.finished", callId: pending[0].id, content: "ran without a decision" });
        }
        if (s.value === "callingModel") stray.push({ type: "approval.decided", callId: "s1", approved: true });
        for (const event of stray) {
          const [next] = transition(agentMachine, s, event);
          expect(next.value).toEqual(s.value);
          expect(next.context).toBe(s.context);
        }
        // A decision for no pending call changes nothing.
        if (s.status === "active" && s.value !== "callingModel") {
          const [next] = transition(agentMachine, s, { type: "approval.decided", callId: "x", approved: true });
          expect(next.value).toEqual(s.value);
          expect(next.context).toEqual(s.context);
        }
      }
    }
  });
});

/** What a path's run through a real actor got wrong; the paths are thousands, so problems are collected. */
function actorProblems(graph: Graph, path: Path): string[] {
  const events = eventsAlong(path);
  const { requests, requestsAt, entries, snapshot } = runInActor(graph.input, events);
  const problems: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) problems.push(`${what} along ${JSON.stringify(events.map((e) => e.type))}`);
  };
  const calls = requests.filter((r) => r.type === "callModel");
  const intoCallingModel = entries.filter((e) => e.target === "callingModel");
  check(
    intoCallingModel.every((e) => e.source === "budgetCheck"),
    "callingModel entered from elsewhere than budgetCheck",
  );
  // Every call runs only after nextCall's decisions (repeat, denial, approval).
  check(
    entries.filter((e) => e.target === "runningTool").every((e) => e.source === "nextCall"),
    "runningTool entered from elsewhere than nextCall",
  );
  // budgetCheck follows the last answer: from nextCall, or straight from runningTool with the last result.
  check(
    entries
      .filter((e) => e.target === "budgetCheck")
      .every((e) => e.source === "nextCall" || e.source === "runningTool"),
    "budgetCheck entered from elsewhere than nextCall or runningTool",
  );
  // One model call per reply, and one more for a call that was under way when the run was cancelled; the same for tools.
  const before = path.steps.at(-2)?.state;
  const cancelledIn = (value: "callingModel" | typeof RUNNING) =>
    snapshot.value === "cancelled" && before?.matches(value) === true;
  check(intoCallingModel.length === calls.length, "callingModel entered without a model call");
  check(calls.length === modelReplies(events) + (cancelledIn("callingModel") ? 1 : 0), "model calls != replies");
  check(calls.length <= graph.setup.maxSteps, "more model calls than maxSteps");
  check(JSON.stringify(calls.map((r) => r.step)) === JSON.stringify(calls.map((_, i) => i + 1)), "steps misnumbered");
  const runs = requests.filter((r) => r.type === "runTool").length;
  const finished = events.filter((e) => e.type === "tool.finished").length;
  check(runs === finished + (cancelledIn(RUNNING) ? 1 : 0), "runTool requests != results");
  check(JSON.stringify(snapshot.value) === JSON.stringify(path.state.value), "another end than the graph's");
  check(snapshot.status === "done", "not ended");
  check(snapshot.context.steps === path.state.context.steps, "other steps than the graph's");
  const trace = traceProblem(snapshot.output?.messages ?? []);
  check(trace === null, `trace: ${trace}`);
  // A call that needs approval is sent to run only after a decision approving it, given after its reply;
  // a decision is asked for only for such a call.
  let approved = new Set<string>();
  for (const [i, event] of events.entries()) {
    if (event.type === "model.replied") approved = new Set();
    if (event.type === "approval.decided" && event.approved) approved.add(event.callId);
    for (const request of requests.slice(requestsAt[i], requestsAt[i + 1])) {
      if (request.type === "callModel") continue;
      const { id, name } = request.call;
      if (request.type === "runTool") check(name !== RISKY || approved.has(id), `${id} sent to run without approval`);
      if (request.type === "requestDecision") check(name === RISKY, `a decision asked for ${id}`);
    }
  }
  return problems;
}

/**
 * The complete paths that run through a real actor: all of them up to three steps; beyond, the runs that end
 * in a limit or a repeat. A run that ends in `done` or `cancelled` is the start of such a run plus one last
 * event (the answer, the cancel), and that last move is checked from every vertex of the graph above.
 */
function actorPaths(graph: Graph): Path[] {
  const complete = graph.paths.filter((p) => p.state.status === "done");
  if (graph.setup.maxSteps <= 3) return complete;
  return complete.filter((p) => p.state.value !== "cancelled" && p.state.value !== "done");
}

describe("agentMachine replayed in a running actor", () => {
  it.each([1, 2, 3, 4, 5, 6])(
    "maxSteps %i: callingModel is entered only from budgetCheck, at most maxSteps times",
    (maxSteps) => {
      for (const setup of setupsFor(maxSteps)) {
        const graph = explore(setup);
        const paths = actorPaths(graph);
        expect(paths.length).toBeGreaterThan(0);
        expect(paths.flatMap((path) => actorProblems(graph, path))).toEqual([]);
      }
    },
    30_000,
  );

  it("a replayed path that exits gives the same output as folding its events through transition()", () => {
    for (const onRepeatedCall of POLICIES) {
      const { input, paths } = explore({
        maxSteps: 3,
        tokenBudget: tightestStepLimitBudget({ maxSteps: 3, onRepeatedCall }),
        onRepeatedCall,
      });
      const complete = paths.filter((p) => p.state.status === "done");
      expect(complete.length).toBeGreaterThan(40);
      for (const path of complete) {
        const events = eventsAlong(path);
        const folded = fold(input, events);
        expect(folded.at(-1)?.status).toBe("done");
        expect(runInActor(input, events).snapshot.output).toEqual(folded.at(-1)?.output);
        expect(peakNeed(folded)).toBeLessThanOrEqual(input.tokenBudget ?? 0);
      }
    }
  });
});
