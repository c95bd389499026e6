import { describe, expect, it } from "vitest";
import type { Message } from "../../src/index.js";
import type { AgentSnapshot } from "../../src/machine.js";
import { traceProblem } from "../run/trace.js";
import {
  callCounts,
  callStates,
  eventsAlong,
  explore,
  FAMILIES,
  fold,
  HUGE_BUDGET,
  movesOf,
  POLICIES,
  RUNNING,
  SHALLOW,
  setupsFor,
  vertices,
} from "./agent-graph.js";
import { ordersOf, repeatProblems, takeUpProblems } from "./graph-rules.js";

/** The list a snapshot holds, and the tool messages after its last assistant message. */
function listOf(snapshot: AgentSnapshot): { messages: readonly Message[]; answers: readonly Message[] } {
  const messages = snapshot.context.transcript.toJSON();
  const at = messages.findLastIndex((m) => m.role === "assistant");
  return { messages, answers: messages.slice(at + 1) };
}

describe("the rules' own counts, checked by hand", () => {
  it("send and an unknown tool; two lookups; a refused call; a call that stops the run", () => {
    // At once: approve-result-result, approve-(nope)-result, (nope)-approve-result, deny-(nope), (nope)-deny;
    // the waits: the start, after approve, approve+send, approve+nope, after nope, nope+approve, after deny.
    expect(ordersOf([true, false], [false, false], 2, Number.POSITIVE_INFINITY)).toEqual({ complete: 5, waits: 7 });
    // One at a time: approve-send-nope, deny-nope; the waits: the start, after approve, after send, after deny.
    expect(ordersOf([true, false], [false, false], 2, 1)).toEqual({ complete: 2, waits: 4 });
    // Two lookups at once finish in either order; one at a time in call order.
    expect(ordersOf([false, false], [false, false], 2, Number.POSITIVE_INFINITY)).toEqual({ complete: 2, waits: 3 });
    expect(ordersOf([false, false], [false, false], 2, 1)).toEqual({ complete: 1, waits: 2 });
    // A refused call is answered from the start; a run that stops at the first call waits for nothing.
    expect(ordersOf([false, false], [true, false], 2, Number.POSITIVE_INFINITY)).toEqual({ complete: 1, waits: 1 });
    expect(ordersOf([false, false], [false, false], 0, Number.POSITIVE_INFINITY)).toEqual({ complete: 1, waits: 0 });
  });
});

describe("calls of one reply taken up at once", () => {
  it.each(SHALLOW)(
    "%s, maxSteps %i: never more in progress than toolConcurrency, taken up in call order as room frees",
    (_, maxSteps, { base }) => {
      for (const setup of setupsFor(maxSteps, base)) {
        const complete = explore(setup).paths.filter((p) => p.state.status === "done");
        // Every path is the start of a complete one (no dead ends), so the complete ones cover every state.
        expect(complete.flatMap((path) => takeUpProblems(setup, path))).toEqual([]);
      }
    },
  );

  it.each(FAMILIES.map((f) => [f.name, f] as const))(
    "%s: a call waits for its decision while others run only when more than one may be in progress",
    (_, { base }) => {
      const graph = explore({ ...base, maxSteps: 2, tokenBudget: HUGE_BUDGET });
      const both = vertices(graph).filter(
        (v) => v.status === "active" && v.matches(RUNNING) && callCounts(v).deciding > 0,
      );
      expect(both.length > 0).toBe(base.toolConcurrency === undefined);
      for (const state of both) {
        // There, a decision and a result may each come first.
        const kinds = new Set(movesOf(graph, state).map((m) => m.event.type));
        expect([...kinds].sort()).toEqual(["approval.decided", "run.cancelled", "tool.finished"]);
      }
    },
  );

  it.each(SHALLOW)(
    "%s, maxSteps %i: each running call may finish first; its message waits for the calls before it, in call order",
    (_, maxSteps, { base }) => {
      let several = 0;
      for (const setup of setupsFor(maxSteps, base)) {
        const graph = explore(setup);
        for (const state of vertices(graph).filter((v) => v.status === "active" && v.matches(RUNNING))) {
          const batch = state.context.batch;
          const stands = callStates(state);
          const running = stands.flatMap((s, i) => (s === "running" ? [i] : []));
          if (running.length > 1) several += 1;
          for (const index of running) {
            const call = batch?.calls[index];
            const move = movesOf(graph, state).find(
              (m) => m.event.type === "tool.finished" && m.event.callId === call?.id,
            );
            expect(move).toBeDefined();
            if (move === undefined) continue;
            const after = callStates(move.state);
            expect(after[index]).toBe("answered");
            const before = listOf(state);
            const { messages, answers } = listOf(move.state);
            // Append-only: the list before is the start of the list after.
            expect(messages.slice(0, before.messages.length)).toEqual(before.messages);
            // The messages after the reply are the answered calls at its head, in call order.
            const head = after.findIndex((s) => s !== "answered");
            const prefix = head === -1 ? after.length : head;
            expect(answers.map((m) => (m.role === "tool" ? m.toolCallId : m.role))).toEqual(
              batch?.calls.slice(0, prefix).map((c) => c.id),
            );
            expect(answers.find((m) => m.role === "tool" && m.toolCallId === call?.id)?.content).toBe(
              index < prefix ? `{"for":"${call?.id}"}` : undefined,
            );
          }
        }
      }
      // Only calls that run at once give several running calls.
      expect(several > 0).toBe(base.toolConcurrency === undefined);
    },
  );

  it.each(FAMILIES.filter((f) => f.base.menu === "parallel").map((f) => [f.name, f] as const))(
    "%s: whatever order the results and decisions come in, a run gives the same result",
    (_, { base }) => {
      for (const policy of POLICIES) {
        const graph = explore({ ...base, maxSteps: 2, tokenBudget: HUGE_BUDGET, policy });
        // Runs told apart by their replies and decisions only; a cancel would cut them where it falls.
        const groups = new Map<string, AgentSnapshot[]>();
        for (const path of graph.paths) {
          if (path.state.status !== "done" || path.state.value === "cancelled") continue;
          const events = eventsAlong(path);
          const key = JSON.stringify(
            events.filter((e) => e.type !== "tool.finished").map((e) => (e.type === "model.replied" ? e.reply : e)),
          );
          groups.set(key, [...(groups.get(key) ?? []), fold(graph.input, events).at(-1) as AgentSnapshot]);
        }
        const sizes = [...groups.values()].map((g) => g.length);
        // All at once, an approved send and the unknown tool finish in three orders; one at a time, in one.
        expect(Math.max(...sizes)).toBe(base.toolConcurrency === undefined ? 3 * 3 : 1);
        for (const ends of groups.values()) {
          for (const end of ends) expect(end.output).toEqual(ends[0]?.output);
          expect(traceProblem(ends[0]?.output?.messages ?? [])).toBeNull();
        }
      }
    },
  );
});

describe("the repeat guard on calls that run at once", () => {
  it.each(FAMILIES.map((f) => [f.name, f] as const))(
    "%s: under both policies a repeated call is never taken up while the calls around it are",
    (_, { base }) => {
      for (const policy of ["refuse", "stop"] as const) {
        const setup = { ...base, maxSteps: 3, tokenBudget: HUGE_BUDGET, policy, repeatLimit: 2 };
        const complete = explore(setup).paths.filter((p) => p.state.status === "done");
        expect(complete.flatMap((path) => [...repeatProblems(setup, path), ...takeUpProblems(setup, path)])).toEqual(
          [],
        );
        // Refused, the repeat is answered at once, in its place, and the calls after it run anyway.
        const refusedFirst = complete.filter((path) =>
          path.steps.some(
            ({ event, state }) =>
              event.type === "model.replied" &&
              event.reply.toolCalls.length === 2 &&
              callStates(state)[0] === "answered" &&
              callStates(state)[1] !== "waiting",
          ),
        );
        expect(refusedFirst.length > 0).toBe(policy === "refuse" && base.menu === "parallel");
        if (policy === "stop") expect(complete.some((p) => p.state.value === "repeatedCall")).toBe(true);
      }
    },
  );
});
