import { describe, expect, it } from "vitest";
import { initialTransition } from "xstate";
import { agentMachine, asks, contentText, toolCall } from "../../src/index.js";
import type { AgentEvent, AgentSnapshot } from "../../src/machine.js";
import {
  callStates,
  explore,
  FAMILIES,
  HUGE_BUDGET,
  inputOf,
  type Path,
  RISKY,
  type Setup,
  SHALLOW,
  setupsFor,
} from "./agent-graph.js";
import { endsOf } from "./graph-rules.js";
import { actorProblems, occurrenceProblems, type Stepped, step, stepsOf } from "./graph-runs.js";

/**
 * Approval belongs to a call occurrence, not to an id: proved over every path of the graphs, with
 * ids that never repeat, ids that come back in every reply, and (as a log of schema 1 could hold,
 * fed to the machine directly) one id for every call, several in one reply.
 */

const complete = (paths: readonly Path[]) => paths.filter((p) => p.state.status === "done");

describe("a call that needs approval runs only on a decision given to it, along every path", () => {
  it.each(SHALLOW)(
    "%s, maxSteps %i: fresh ids and reused ids",
    (_, maxSteps, { base }) => {
      for (const ids of ["fresh", "reused"] as const) {
        for (const setup of setupsFor(maxSteps, { ...base, ids })) {
          const paths = complete(explore(setup).paths);
          expect(paths.length).toBeGreaterThan(0);
          expect(paths.flatMap((path) => occurrenceProblems(stepsOf(path)))).toEqual([]);
        }
      }
      // Thousands of paths at the deeper limits: a loaded machine takes several seconds over them.
    },
    60_000,
  );

  it.each(FAMILIES.map((f) => [f.name, f] as const))(
    "%s: ids that come back in every reply change nothing: the same runs, ending the same ways",
    (_, { base }) => {
      for (const setup of setupsFor(3, base)) {
        const fresh = explore(setup);
        const reused = explore({ ...setup, ids: "reused" });
        expect(reused.paths.length).toBe(fresh.paths.length);
        expect(Object.keys(reused.adjacency).length).toBe(Object.keys(fresh.adjacency).length);
        expect(endsOf(reused.paths)).toEqual(endsOf(fresh.paths));
      }
    },
  );

  it.each(FAMILIES.map((f) => [f.name, f] as const))(
    "%s: a reply that reuses an id inherits nothing: its calls start afresh, and one that needs approval waits",
    (_, { base }) => {
      for (const setup of setupsFor(3, { ...base, ids: "reused" })) {
        let replies = 0;
        for (const path of complete(explore(setup).paths)) {
          for (const { event, requests, after } of stepsOf(path)) {
            if (event.type !== "model.replied" || after.status !== "active") continue;
            replies += 1;
            const stands = callStates(after);
            for (const [i, call] of event.reply.toolCalls.entries()) {
              if (call.name === RISKY) expect(["waiting", "deciding"]).toContain(stands[i]);
            }
            expect(requests.filter((r) => r.request.type === "runTool" && r.request.call.name === RISKY)).toEqual([]);
          }
        }
        expect(replies).toBeGreaterThan(0);
      }
    },
  );

  it.each([
    [1, 1],
    [2, 1],
    [1, Number.POSITIVE_INFINITY],
    [2, Number.POSITIVE_INFINITY],
  ])(
    "one id for every call, schema 1, maxSteps %i, toolConcurrency %d: each decision sends one call to run",
    (maxSteps, toolConcurrency) => {
      const setup: Setup = { maxSteps, tokenBudget: HUGE_BUDGET, ids: "shared", menu: "parallel", toolConcurrency };
      const graph = explore(setup);
      const paths = complete(graph.paths);
      expect(paths.flatMap((path) => occurrenceProblems(stepsOf(path)))).toEqual([]);
      // The real actor agrees: the same requests, each call run by enterCalls or by the decision approving it.
      if (maxSteps === 1) expect(paths.flatMap((path) => actorProblems(graph, path))).toEqual([]);
    },
  );
});

/** Steps `events` purely from the start of a setup's machine. */
function walk(setup: Setup, events: readonly AgentEvent[]): Stepped[] {
  const run: Stepped[] = [];
  let at: AgentSnapshot = initialTransition(agentMachine, inputOf(setup))[0];
  for (const event of events) {
    const stepped = step(at, event);
    run.push(stepped);
    at = stepped.after;
  }
  return run;
}

/** What each step sent to run, as the `to` argument of each `send`, or the call's id. */
function sent(run: readonly Stepped[]): string[][] {
  return run.map(({ requests }) =>
    requests.flatMap(({ request }) =>
      request.type === "runTool" ? [String(request.call.name === RISKY ? request.call.args.to : request.call.id)] : [],
    ),
  );
}

const approve = (callId: string): AgentEvent => ({ type: "approval.decided", callId, approved: true });
const deny = (callId: string): AgentEvent => ({ type: "approval.decided", callId, approved: false });
const finish = (callId: string): AgentEvent => ({ type: "tool.finished", callId, content: "{}" });
const replied = (...calls: ReturnType<typeof toolCall>[]): AgentEvent => ({
  type: "model.replied",
  reply: asks(...calls),
});

describe("the cases that broke when approval was kept by id", () => {
  const shared = { maxSteps: 3, tokenBudget: HUGE_BUDGET, ids: "shared" } as const;
  const alice = toolCall("call_0", RISKY, { to: "alice" });
  const mallory = toolCall("call_0", RISKY, { to: "mallory" });

  it("two calls with one id in one reply never both ride on one decision: each waits for its own", () => {
    for (const toolConcurrency of [1, 2, Number.POSITIVE_INFINITY]) {
      const twice = replied(alice, mallory);
      const run = walk({ ...shared, toolConcurrency }, [twice, approve("call_0"), finish("call_0"), approve("call_0")]);
      expect(occurrenceProblems(run)).toEqual([]);
      expect(sent(run)).toEqual([[], ["alice"], [], ["mallory"]]);
      // One decision given, one call running: the other still waits for its own.
      expect(callStates(run[1]?.after as AgentSnapshot)).toEqual([
        "running",
        toolConcurrency === 1 ? "waiting" : "deciding",
      ]);
      expect(run[2]?.after.value).toEqual({ executingTools: "awaitingDecision" });
    }
  });

  it("a later reply that reuses an approved call's id waits for a decision of its own", () => {
    for (const toolConcurrency of [1, Number.POSITIVE_INFINITY]) {
      const run = walk({ ...shared, toolConcurrency }, [
        replied(alice),
        approve("call_0"),
        finish("call_0"),
        // Given early, before the reply that reuses the id: no call waits, so it changes nothing.
        approve("call_0"),
        replied(mallory),
        finish("call_0"),
        deny("call_0"),
      ]);
      expect(occurrenceProblems(run)).toEqual([]);
      expect(sent(run)).toEqual([[], ["alice"], [], [], [], [], []]);
      expect(run[3]?.after.context).toBe(run[2]?.after.context);
      expect(run[4]?.requests.map((r) => r.request.type)).toEqual(["requestDecision"]);
      // A result for a call that waits for a decision is no result: mallory never ran.
      expect(run[5]?.after.context).toBe(run[4]?.after.context);
      const last = run.at(-1)?.after.context.transcript.toJSON().at(-1);
      expect(last?.role === "tool" && contentText(last.content).startsWith("ERROR: the user denied this call")).toBe(
        true,
      );
    }
  });
});
