import { getStateNodes } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import { type AnyTransitionDefinition, initialTransition, transition } from "xstate";
import { agentMachine, final } from "../../src/index.js";
import type { AgentEvent } from "../../src/machine.js";
import { traceProblem } from "../run/trace.js";
import {
  AWAITING,
  callCounts,
  callStates,
  DEPTHS,
  eventsAlong,
  explore,
  FAMILIES,
  FINAL_STATES,
  fold,
  HUGE_BUDGET,
  inputOf,
  libraryPaths,
  type Move,
  nextPromptTokens,
  type Path,
  POLICIES,
  peakNeed,
  RUNNING,
  reachedFinals,
  setupsFor,
  tightestStepLimitBudget,
  vertices,
} from "./agent-graph.js";
import { endsOf, expectedEnds } from "./graph-rules.js";
import { actionName, actorProblems, runInActor } from "./graph-runs.js";

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
  const reply = last?.type === "model.replied" ? last.reply : null;
  const ok =
    (end === "stepLimit" && calls === maxSteps) ||
    (end === "tokenBudget" && calls < maxSteps) ||
    (end === "done" && reply?.toolCalls.length === 0 && reply.finishReason === undefined) ||
    (end === "refused" && reply?.finishReason === "refusal") ||
    (end === "cancelled" && last?.type === "run.cancelled") ||
    (end === "repeatedCall" && last?.type !== "run.cancelled") ||
    path.state.status === "active";
  if (!ok) problems.push(`${String(end)} after ${calls} calls along ${where()}`);
  return problems;
}

/** The exits of the answer check and the guardrails, walked in graph-checks.test.ts. */
const CHECK_EXITS = ["invalidOutput", "guardrailTripped"];
/** The exit of the cost budget, walked in graph-cost-budget.test.ts. */
const COST_EXITS = ["costBudget"];

describe("agentMachine structure", () => {
  const root = agentMachine.root;
  const nodes = getStateNodes(root);
  const transitionsOf = (node: typeof root): AnyTransitionDefinition[] => [
    ...[...node.transitions.values()].flat(),
    ...(node.always ?? []),
  ];
  const keys = (targets: AnyTransitionDefinition["target"]) => (targets ?? []).map((n) => n.key);
  const names = (t: AnyTransitionDefinition) => t.actions.map(actionName);
  const tools = root.states.executingTools;

  it("starts in budgetCheck and has exactly the designed states", () => {
    expect(root.initial.target.map((n) => n.key)).toEqual(["budgetCheck"]);
    expect(Object.keys(root.states).sort()).toEqual(
      [
        "budgetCheck",
        "callingModel",
        "compacting",
        "preparingStep",
        "retryWait",
        "executingTools",
        "checkingOutput",
        "answered",
        "guardingInput",
        "guardingOutput",
        "handingOff",
        "recalling",
        ...FINAL_STATES,
        ...CHECK_EXITS,
        ...COST_EXITS,
      ].sort(),
    );
    expect(Object.keys(root.states.compacting?.states ?? {}).sort()).toEqual(["awaitingView", "checkingSummary"]);
    expect(Object.keys(tools?.states ?? {}).sort()).toEqual([
      "awaitingDecision",
      "awaitingInput",
      "nextCalls",
      "runningTools",
    ]);
    expect(tools?.initial.target.map((n) => n.key)).toEqual(["nextCalls"]);
    const finals = nodes.filter((n) => n.type === "final").map((n) => n.key);
    expect(finals.sort()).toEqual([...FINAL_STATES, ...CHECK_EXITS, ...COST_EXITS].sort());
  });

  it("enters callingModel only from budgetCheck", () => {
    const all = [root, ...nodes].flatMap(transitionsOf);
    const intoCallingModel = all.filter((t) => keys(t.target).includes("callingModel"));
    expect(intoCallingModel.length).toBeGreaterThan(0);
    for (const t of intoCallingModel) expect(t.source.key).toBe("budgetCheck");
  });

  it("budgetCheck decides with eventless transitions only: input guardrails, recall, step limit, compaction, the step's settings, budgets, then the call", () => {
    const budgetCheck = root.states.budgetCheck;
    expect([...(budgetCheck?.transitions.keys() ?? [])]).toEqual([]);
    expect((budgetCheck?.always ?? []).map((t) => [keys(t.target), t.guard])).toEqual([
      [["guardingInput"], "isInputUnguarded"],
      [["recalling"], "needsRecall"],
      [["stepLimit"], "isStepLimitReached"],
      [["compacting"], "needsCompaction"],
      [["preparingStep"], "needsPreparingFirst"],
      [["tokenBudget"], "isOverBudget"],
      [["costBudget"], "isOverCostBudget"],
      [["callingModel"], undefined],
    ]);
  });

  it("recalling is entered only from budgetCheck and goes back to it with the recalled memories", () => {
    const all = [root, ...nodes].flatMap(transitionsOf);
    const into = all.filter((t) => keys(t.target).includes("recalling"));
    expect(into.map((t) => t.source.key)).toEqual(["budgetCheck"]);
    const recalling = [...(root.states.recalling?.transitions.values() ?? [])].flat();
    expect(recalling.map((t) => [t.eventType, keys(t.target), t.guard, names(t)])).toEqual([
      ["memory.recalled", ["budgetCheck"], "isAwaitedRecall", ["recordRecall"]],
    ]);
  });

  it("compacting is entered only from budgetCheck; it ends in tokenBudget, costBudget or goes back to budgetCheck with the view", () => {
    const all = [root, ...nodes].flatMap(transitionsOf);
    for (const t of all.filter((t) => keys(t.target).includes("compacting"))) expect(t.source.key).toBe("budgetCheck");
    const compacting = root.states.compacting;
    expect(compacting?.initial.target.map((n) => n.key)).toEqual(["checkingSummary"]);
    expect((compacting?.states.checkingSummary?.always ?? []).map((t) => [keys(t.target), t.guard])).toEqual([
      [["tokenBudget"], "isSummaryOverBudget"],
      [["costBudget"], "isSummaryOverCostBudget"],
      [["awaitingView"], undefined],
    ]);
    const awaiting = [...(compacting?.states.awaitingView?.transitions.values() ?? [])].flat();
    expect(awaiting.map((t) => [t.eventType, keys(t.target), t.guard, names(t)])).toEqual([
      ["context.compacted", ["budgetCheck"], "isPlannedCompaction", ["recordCompaction"]],
    ]);
  });

  it("preparingStep is entered only from budgetCheck and goes back to it with the step's settings", () => {
    const all = [root, ...nodes].flatMap(transitionsOf);
    const into = all.filter((t) => keys(t.target).includes("preparingStep"));
    expect(into.map((t) => t.source.key)).toEqual(["budgetCheck"]);
    const preparing = [...(root.states.preparingStep?.transitions.values() ?? [])].flat();
    expect(preparing.map((t) => [t.eventType, keys(t.target), t.guard, names(t)])).toEqual([
      ["step.prepared", ["budgetCheck"], "isPlannedPreparation", ["recordPreparation"]],
    ]);
  });

  it("nextCalls decides with eventless transitions only: a handoff once all are answered, all answered, a repeat that stops, then the wait", () => {
    const nextCalls = tools?.states.nextCalls;
    expect([...(nextCalls?.transitions.keys() ?? [])]).toEqual([]);
    expect((nextCalls?.always ?? []).map((t) => [keys(t.target), t.guard, names(t)])).toEqual([
      [["handingOff"], "isHandoffDue", []],
      [["budgetCheck"], "allCallsAnswered", []],
      [["repeatedCall"], "isStoppedByRepeat", []],
      [["runningTools"], "isAnyCallRunning", []],
      [["awaitingDecision"], "isAnyDecisionAwaited", []],
      [["awaitingInput"], undefined, []],
    ]);
  });

  it("runningTools takes a running call's result, question or child's pause, a waiting call's decision or a question's answer; awaitingDecision decisions and answers; awaitingInput only answers; all three a paused call's resume", () => {
    const on = (state: "runningTools" | "awaitingDecision" | "awaitingInput") =>
      [...(tools?.states[state]?.transitions.values() ?? [])]
        .flat()
        .map((t) => [t.eventType, keys(t.target), t.guard, names(t)]);
    expect(on("runningTools")).toEqual([
      // The result that answers the last call left goes straight to the handoff the reply asked for, or back to budgetCheck.
      ["tool.finished", ["handingOff"], "isLastResultBeforeHandoff", ["recordResult"]],
      ["tool.finished", ["budgetCheck"], "isLastResult", ["recordResult"]],
      ["tool.finished", ["nextCalls"], "isRunningCall", ["recordResult", "enterCalls"]],
      // A running call whose tool asked a question ends without its result and waits for the answer.
      ["tool.asked", ["nextCalls"], "isAskFromRunningCall", ["recordAsk"]],
      // A running call whose child paused waits, paused in it, until it is resumed.
      ["tool.paused", ["nextCalls"], "isPauseFromRunningCall", ["recordPause"]],
      ["tool.resumed", ["nextCalls"], "isResumeOfPausedCall", ["recordResume"]],
      ["approval.decided", ["nextCalls"], "isAwaitedDecision", ["recordDecision", "enterCalls"]],
      ["question.answered", ["nextCalls"], "isAwaitedAnswer", ["recordAnswer", "enterCalls"]],
    ]);
    expect(on("awaitingDecision")).toEqual([
      ["approval.decided", ["nextCalls"], "isAwaitedDecision", ["recordDecision", "enterCalls"]],
      ["question.answered", ["nextCalls"], "isAwaitedAnswer", ["recordAnswer", "enterCalls"]],
      ["tool.resumed", ["nextCalls"], "isResumeOfPausedCall", ["recordResume"]],
    ]);
    expect(on("awaitingInput")).toEqual([
      ["question.answered", ["nextCalls"], "isAwaitedAnswer", ["recordAnswer", "enterCalls"]],
      ["tool.resumed", ["nextCalls"], "isResumeOfPausedCall", ["recordResume"]],
    ]);
  });

  it("calls are taken up by enterCalls only: with the reply, and after each result or decision that frees a place", () => {
    const acting = [root, ...nodes]
      .flatMap(transitionsOf)
      .flatMap((t) => names(t).map((name) => `${t.source.key} ${t.eventType}: ${name}`))
      .filter((entry) => /enterCalls|recordDecision|recordResult|recordAnswer/.test(entry))
      .sort();
    expect(acting).toEqual(
      [
        "callingModel model.replied: enterCalls",
        "runningTools tool.finished: recordResult",
        "runningTools tool.finished: recordResult",
        "runningTools tool.finished: recordResult",
        "runningTools tool.finished: enterCalls",
        "runningTools approval.decided: recordDecision",
        "runningTools approval.decided: enterCalls",
        "awaitingDecision approval.decided: recordDecision",
        "awaitingDecision approval.decided: enterCalls",
        "runningTools question.answered: recordAnswer",
        "runningTools question.answered: enterCalls",
        "awaitingDecision question.answered: recordAnswer",
        "awaitingDecision question.answered: enterCalls",
        "awaitingInput question.answered: recordAnswer",
        "awaitingInput question.answered: enterCalls",
      ].sort(),
    );
  });

  it("handingOff is entered once a reply's calls are all answered, and goes back to budgetCheck with the handoff it waits for", () => {
    const all = [root, ...nodes].flatMap(transitionsOf);
    const into = all.filter((t) => keys(t.target).includes("handingOff"));
    expect(into.map((t) => [t.source.key, t.eventType, t.guard]).sort()).toEqual([
      ["nextCalls", "", "isHandoffDue"],
      ["runningTools", "tool.finished", "isLastResultBeforeHandoff"],
    ]);
    const handing = [...(root.states.handingOff?.transitions.values() ?? [])].flat();
    expect(handing.map((t) => [t.eventType, keys(t.target), t.guard, names(t)])).toEqual([
      ["handoff", ["budgetCheck"], "isAwaitedHandoff", ["recordHandoff"]],
    ]);
  });

  it("final states have no way out and every other state has one; run.cancelled is the root's, for every state", () => {
    for (const node of nodes) {
      // A compound state's way out is its children's; the root's run.cancelled is everyone's.
      const own = transitionsOf(node).length > 0 || node.type === "compound";
      expect(own, node.key).toBe(node.type !== "final");
    }
    const cancels = [root, ...nodes].flatMap(transitionsOf).filter((t) => t.eventType === "run.cancelled");
    expect(cancels.map((t) => [t.source.key, keys(t.target)])).toEqual([["agent", ["cancelled"]]]);
  });
});

describe("agentMachine graph", () => {
  it.each(FAMILIES.map((f) => [f.name, f] as const))(
    "%s: reaches done, refused, stepLimit and cancelled, never tokenBudget or repeatedCall, when nothing else can stop it",
    (_, family) => {
      expect(reachedFinals(explore({ ...family.base, maxSteps: 3, tokenBudget: HUGE_BUDGET }))).toEqual([
        "cancelled",
        "done",
        "refused",
        "stepLimit",
      ]);
    },
  );

  it("reaches tokenBudget, never stepLimit, when the budget runs out before the step limit", () => {
    // Three one-call steps fit, a fourth prompt does not.
    const graph = explore({ maxSteps: 3, tokenBudget: HUGE_BUDGET, toolConcurrency: 1 });
    const oneCall = (e: AgentEvent) => e.type !== "model.replied" || e.reply.toolCalls.length === 1;
    const path = graph.paths.find((p) => p.state.value === "stepLimit" && eventsAlong(p).every(oneCall));
    expect(path).toBeDefined();
    const budget = path === undefined ? 0 : (fold(graph.input, eventsAlong(path)).at(-1)?.context.tokens ?? 0);
    expect(budget).toBeGreaterThan(0);
    const tight = explore({ maxSteps: 6, tokenBudget: budget, toolConcurrency: 1 });
    expect(reachedFinals(tight)).toEqual(["cancelled", "done", "refused", "tokenBudget"]);
    const stopped = vertices(tight).filter((s) => s.value === "tokenBudget");
    expect(Math.min(...stopped.map((s) => s.context.steps))).toBeGreaterThan(0);
    expect(Math.max(...stopped.map((s) => s.context.steps))).toBeLessThanOrEqual(3);
  });

  it.each(FAMILIES.map((f) => [f.name, f] as const))(
    "%s: reaches every exit but repeatedCall with a budget that only the cheapest full run fits",
    (_, { base }) => {
      const budget = tightestStepLimitBudget({ ...base, maxSteps: 3 });
      expect(reachedFinals(explore({ ...base, maxSteps: 3, tokenBudget: budget }))).toEqual([
        "cancelled",
        "done",
        "refused",
        "stepLimit",
        "tokenBudget",
      ]);
      // The cheapest run fits the budget exactly: one token less and no run reaches the step limit.
      expect(reachedFinals(explore({ ...base, maxSteps: 3, tokenBudget: budget - 1 }))).toEqual([
        "cancelled",
        "done",
        "refused",
        "tokenBudget",
      ]);
    },
  );

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

  it("our one-walk simple paths are exactly getSimplePaths', on the graphs small enough for the library", () => {
    let compared = 0;
    for (const family of FAMILIES) {
      for (const maxSteps of family.depths.filter((d) => d <= (family.base.menu === "parallel" ? 2 : 3))) {
        for (const graph of setupsFor(maxSteps, family.base).map(explore)) {
          const signature = (p: Path) => JSON.stringify([eventsAlong(p), graph.serializeState(p.state)]);
          expect(graph.paths.map(signature).sort()).toEqual(libraryPaths(graph).map(signature).sort());
          compared += 1;
        }
      }
    }
    expect(compared).toBe(6 * (3 + 2 + 2));
  });

  it.each(DEPTHS)("%s, maxSteps %i: no path makes more model calls than maxSteps", (_, maxSteps, { base }) => {
    for (const setup of setupsFor(maxSteps, base)) {
      const { paths } = explore(setup);
      // Problems are collected, not asserted one by one: there are thousands of paths.
      expect(paths.flatMap((path) => callProblems(path, maxSteps))).toEqual([]);
      if (setup.tokenBudget === HUGE_BUDGET) {
        // Every branch was walked: as many runs end in each exit as the rules say.
        expect(endsOf(paths)).toEqual(expectedEnds(setup));
      } else {
        // With one step every run sends the same first prompt, so the budget cannot tell runs apart.
        const exits = ["cancelled", "done", "refused", "stepLimit", ...(maxSteps === 1 ? [] : ["tokenBudget"])];
        // The third lookup of `a` in a row takes three replies: a reply asks for it once at most.
        if (setup.policy === "stop" && maxSteps >= 3) exits.push("repeatedCall");
        expect(reachedFinals(explore(setup))).toEqual(exits.sort());
      }
    }
  });

  it.each(DEPTHS)(
    "%s, maxSteps %i: budgetCheck lets a call through only when it fits, and stops it otherwise",
    (_, maxSteps, { base }) => {
      for (const setup of setupsFor(maxSteps, base)) {
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

  it.each(DEPTHS)(
    "%s, maxSteps %i: no dead ends; every state can exit without being cancelled, and can be cancelled",
    (_, maxSteps, { base }) => {
      for (const setup of setupsFor(maxSteps, base)) {
        const graph = explore(setup);
        const canExit = new Set<string>();
        const entries = Object.entries(graph.adjacency);
        for (const [key, { state, transitions }] of entries) {
          const moves = Object.values<Move>(transitions).filter((t) => graph.serializeState(t.state) !== key);
          if (state.status === "done") {
            expect(FINAL_STATES).toContain(state.value);
            expect(graph.events(state)).toEqual([]);
            canExit.add(key);
            continue;
          }
          // budgetCheck and nextCalls are transient: a settled snapshot is never in them.
          const settled = state.value === "callingModel" || state.matches(AWAITING) || state.matches(RUNNING);
          expect(settled, key).toBe(true);
          expect(moves.length, `dead end at ${key}`).toBeGreaterThan(0);
          // A wait is never an end: awaitingDecision has a decision either way for each waiting call, runningTools a result.
          const waiting = callStates(state).filter((c) => c === "deciding").length;
          if (state.matches(AWAITING)) expect(moves.length).toBe(2 * waiting + 1);
          if (state.matches(RUNNING)) expect(callCounts(state).running).toBeGreaterThan(0);
          const cancelled = moves.find((m) => m.event.type === "run.cancelled")?.state;
          expect(cancelled?.value).toBe("cancelled");
          expect(cancelled?.output?.status).toBe("cancelled");
          expect(traceProblem(cancelled?.output?.messages ?? [])).toBeNull();
          if (state.value === "callingModel") {
            const answered = moves.find((m) => m.event.type === "model.replied" && m.state.value === "done");
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
            if (moves.some((t) => canExit.has(graph.serializeState(t.state)))) {
              canExit.add(key);
              changed = true;
            }
          }
        }
        expect(canExit.size).toBe(entries.length);
      }
    },
  );

  it.each(FAMILIES.map((f) => [f.name, f] as const))(
    "%s: ignores events that do not fit the state: no hidden edges",
    (_, { base }) => {
      for (const setup of setupsFor(2, { ...base, ids: "reused" })) {
        for (const s of vertices(explore(setup))) {
          if (s.status !== "active") continue;
          const batch = s.context.batch;
          const states = callStates(s);
          const idsIn = (state: string) => new Set(batch?.calls.filter((_, i) => states[i] === state).map((c) => c.id));
          const running = idsIn("running");
          const deciding = idsIn("deciding");
          // Ids the run used before (the ids come back in every reply), and the calls of this reply in every state.
          const known = ["s", "a", "b", "c", "d", "not-a-call"];
          const stray: AgentEvent[] = [
            ...known.filter((id) => !running.has(id)).map((id) => finished(id)),
            ...known.filter((id) => !deciding.has(id)).flatMap((id) => [decided(id, true), decided(id, false)]),
            ...(s.value === "callingModel" ? [] : [{ type: "model.replied", reply: final("late") } as const]),
          ];
          for (const event of stray) {
            const [next] = transition(agentMachine, s, event);
            expect(next.value).toEqual(s.value);
            expect(next.context).toBe(s.context);
          }
        }
      }
    },
  );
});

function finished(callId: string): AgentEvent {
  return { type: "tool.finished", callId, content: "stray" };
}

function decided(callId: string, approved: boolean): AgentEvent {
  return { type: "approval.decided", callId, approved };
}

/**
 * The complete paths that run through a real actor (each costs an actor, about half a millisecond):
 * all of them up to three steps with the serial menu and two with the parallel one; at four serial
 * steps, the runs that end in a limit or a repeat. A run that ends in `done`, `refused` or
 * `cancelled` is the start of such a run plus one last event (the answer, the refusal, the cancel),
 * and that last move is checked from every vertex of the graph above. Deeper paths are stepped
 * purely (see graph-occurrences.test.ts), where the same requests come out of `transition()`.
 */
function actorPaths(setup: { maxSteps: number; menu?: string }, paths: readonly Path[]): Path[] {
  const complete = paths.filter((p) => p.state.status === "done");
  if (setup.maxSteps <= (setup.menu === "parallel" ? 2 : 3)) return complete;
  return complete.filter(
    (p) => p.state.value !== "cancelled" && p.state.value !== "done" && p.state.value !== "refused",
  );
}

const ACTOR_DEPTHS = DEPTHS.filter(([, maxSteps, { base }]) => maxSteps <= (base.menu === "parallel" ? 2 : 4));

describe("agentMachine replayed in a running actor", () => {
  it.each(ACTOR_DEPTHS)(
    "%s, maxSteps %i: callingModel entered only from budgetCheck, calls sent to run only by enterCalls or an approving decision",
    (_, maxSteps, { base }) => {
      for (const setup of setupsFor(maxSteps, base)) {
        const graph = explore(setup);
        const paths = actorPaths(setup, graph.paths);
        expect(paths.length).toBeGreaterThan(0);
        expect(paths.flatMap((path) => actorProblems(graph, path))).toEqual([]);
      }
    },
    30_000,
  );

  it("a replayed path that exits gives the same output as folding its events through transition()", () => {
    for (const family of FAMILIES) {
      for (const policy of POLICIES) {
        const setup = { ...family.base, maxSteps: 2, policy };
        const { input, paths } = explore({ ...setup, tokenBudget: tightestStepLimitBudget(setup) });
        const complete = paths.filter((p) => p.state.status === "done");
        expect(complete.length).toBeGreaterThan(20);
        for (const path of complete) {
          const events = eventsAlong(path);
          const folded = fold(input, events);
          expect(folded.at(-1)?.status).toBe("done");
          expect(runInActor(input, events).at(-1)?.snapshot.output).toEqual(folded.at(-1)?.output);
          expect(peakNeed(folded)).toBeLessThanOrEqual(input.settings.tokenBudget);
        }
      }
    }
  });
});
