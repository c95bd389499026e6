import { getShortestPaths } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import { agentMachine, type Message } from "../src/index.js";
import type { AgentEvent } from "../src/machine.js";
import {
  type AgentSnapshot,
  AWAITING,
  CANCEL,
  eventsAlong,
  eventsOf,
  explore,
  FINAL_STATES,
  type Graph,
  inputOf,
  type Move,
  movesFrom,
  type Path,
  RISKY,
  RUNNING,
  reachedFinals,
  type Setup,
  serializeState,
  setupsFor,
  tightestStepLimitBudget,
  vertices,
} from "./agent-graph.js";
import { traceProblem } from "./trace.js";

const STEPS = [1, 2, 3, 4, 5, 6];

/** A run's events in short: which calls each reply asked for, the decisions, the results, the cancel. */
function outline(events: readonly AgentEvent[]): string[] {
  return events.map((e) => {
    if (e.type === "model.replied") return e.reply.toolCalls.map((c) => c.name).join("+") || "answer";
    if (e.type === "approval.decided") return e.approved ? "approve" : "deny";
    return e.type === "tool.finished" ? "result" : "cancel";
  });
}

function movesOf(graph: Graph, snapshot: AgentSnapshot): Move[] {
  return movesFrom(graph.adjacency, serializeState(snapshot));
}

function messagesOf(snapshot: AgentSnapshot | undefined): readonly Message[] {
  return (
    snapshot?.output?.messages ?? snapshot?.context.transcript.items.slice(0, snapshot.context.transcript.length) ?? []
  );
}

/** Where a path runs a call that needs approval that no decision since its reply approved. */
function approvalProblems(path: Path): string[] {
  const problems: string[] = [];
  let approved = new Set<string>();
  for (const { event, state } of path.steps) {
    if (event.type === "model.replied") approved = new Set();
    if (event.type === "approval.decided" && event.approved) approved.add(event.callId);
    const [call] = state.context.pendingCalls;
    if (state.matches(RUNNING) && call?.name === RISKY && !approved.has(call.id)) {
      problems.push(`${call.id} runs without approval along ${JSON.stringify(outline(eventsAlong(path)))}`);
    }
  }
  return problems;
}

describe("every exit is a final state the graph reaches", () => {
  // Repeats stop the run after two lookups in a row; the budget fits only the cheapest run of three steps.
  const setup = { maxSteps: 3, repeatLimit: 2, onRepeatedCall: "stop" } as const;
  const tokenBudget = tightestStepLimitBudget(setup);

  it("one graph with approval, a repeat limit of 2, the stop policy and a tight budget reaches all five", () => {
    expect(reachedFinals(explore({ ...setup, tokenBudget }))).toEqual([...FINAL_STATES].sort());
  });

  it("the shortest way to each exit, as getShortestPaths finds it", () => {
    const options = { input: inputOf({ ...setup, tokenBudget }), events: eventsOf, serializeState };
    const shortest = new Map<string, string[]>();
    for (const path of getShortestPaths(agentMachine, options)) {
      const value = String(path.state.value);
      const known = shortest.get(value);
      if (path.state.status === "done" && (known === undefined || known.length > path.steps.length - 1)) {
        shortest.set(value, outline(eventsAlong(path)));
      }
    }
    expect(Object.fromEntries(shortest)).toEqual({
      done: ["answer"],
      cancelled: ["cancel"],
      repeatedCall: ["lookup", "result", "lookup"],
      tokenBudget: ["lookup", "result", "send+nope", "deny", "result"],
      stepLimit: ["lookup", "result", "send+nope", "approve", "result", "result", "lookup", "result"],
    });
  });

  it.each(STEPS)(
    "maxSteps %i: repeatedCall is reached only under the stop policy, after repeatLimit lookups in a row",
    (maxSteps) => {
      for (const s of setupsFor(maxSteps)) {
        const graph = explore(s);
        const repeated = graph.paths.filter((p) => p.state.value === "repeatedCall");
        if (s.onRepeatedCall === "refuse" || maxSteps < 3) expect(repeated).toEqual([]);
        else expect(repeated.length).toBeGreaterThan(0);
        for (const path of repeated) {
          const replies = outline(eventsAlong(path)).filter((e) => e !== "result" && e !== "approve" && e !== "deny");
          expect(replies.slice(-3)).toEqual(["lookup", "lookup", "lookup"]);
        }
      }
    },
  );
});

describe("approval in the graph", () => {
  it.each(STEPS)("maxSteps %i: no path runs a call that needs approval before a decision approves it", (maxSteps) => {
    for (const s of setupsFor(maxSteps)) {
      const { paths } = explore(s);
      expect(paths.some((p) => p.state.matches(AWAITING))).toBe(true);
      expect(paths.flatMap(approvalProblems)).toEqual([]);
    }
  });

  it.each([2, 4, 6])(
    "maxSteps %i: a waiting call moves on with a decision: approved it runs, denied it is answered and never runs",
    (maxSteps) => {
      for (const s of setupsFor(maxSteps)) {
        const graph = explore(s);
        const waiting = vertices(graph).filter((v) => v.matches(AWAITING));
        expect(waiting.length).toBeGreaterThan(0);
        for (const state of waiting) {
          const [call, ...rest] = state.context.pendingCalls;
          expect(call?.name).toBe(RISKY);
          const moves = movesOf(graph, state);
          const approved = moves.find((m) => m.event.type === "approval.decided" && m.event.approved)?.state;
          const denied = moves.find((m) => m.event.type === "approval.decided" && !m.event.approved)?.state;
          expect(approved?.matches(RUNNING)).toBe(true);
          expect(approved?.context.pendingCalls[0]).toEqual(call);
          // Denied: the call gets its tool message at once, and the next call (the unknown tool) runs.
          const before = messagesOf(state).length;
          expect(messagesOf(denied).slice(before)).toEqual([
            {
              role: "tool",
              toolCallId: call?.id,
              name: RISKY,
              content: `ERROR: the user denied this call to ${RISKY} (not now), so it was not run. Do not ask for it again; answer without it or ask the user what to do.`,
            },
          ]);
          expect(denied?.matches(RUNNING)).toBe(true);
          expect(denied?.context.pendingCalls).toEqual(rest);
          // The decision is spent with its call: nothing is left for a later call with the same id.
          expect(denied?.context.decisions).toEqual({});
        }
        // While the run goes on, decisions are kept only for calls still pending.
        for (const v of vertices(graph).filter((v) => v.status === "active")) {
          const ids = v.context.pendingCalls.map((c) => c.id);
          expect(Object.keys(v.context.decisions).every((id) => ids.includes(id))).toBe(true);
        }
      }
    },
  );
});

describe("repeated calls in the graph", () => {
  it.each(STEPS)(
    "maxSteps %i: a lookup repeated repeatLimit times in a row never runs; the refusal says why",
    (maxSteps) => {
      for (const s of setupsFor(maxSteps)) {
        const graph = explore(s);
        const limit = s.repeatLimit ?? 3;
        for (const v of vertices(graph)) {
          const [call] = v.context.pendingCalls;
          const inARow = v.context.lastCall?.key === `lookup:{"q":"a"}` ? v.context.lastCall.count : 0;
          if (v.matches(RUNNING) && call?.name === "lookup") expect(inARow + 1).toBeLessThan(limit);
        }
        for (const path of graph.paths.filter((p) => p.state.status === "done")) {
          const tools = messagesOf(path.state).filter((m) => m.role === "tool");
          const refusals = tools.filter((m) => m.content.includes("with the same arguments"));
          for (const m of refusals) {
            expect(m.content).toBe(
              `ERROR: lookup was asked for with the same arguments ${limit} times in a row, so it was not run again: the result would not change. Use the result you already have, call it with different arguments, or answer.`,
            );
          }
          if (s.onRepeatedCall === "stop") expect(refusals).toEqual([]);
        }
      }
    },
  );

  it("with the stop policy the run ends in repeatedCall, every call of the last reply answered", () => {
    const s: Setup = { maxSteps: 4, tokenBudget: 1_000_000, onRepeatedCall: "stop", repeatLimit: 2 };
    const ends = explore(s).paths.filter((p) => p.state.value === "repeatedCall");
    expect(ends.length).toBeGreaterThan(0);
    for (const path of ends) {
      const messages = messagesOf(path.state);
      expect(traceProblem(messages)).toBeNull();
      expect(messages.at(-1)).toEqual({
        role: "tool",
        toolCallId: `s${path.state.context.steps}`,
        name: "lookup",
        content: "ERROR: lookup was not run to completion: the run stopped because a call was repeated.",
      });
      expect(path.state.output?.status).toBe("repeated_call");
    }
  });
});

describe("cancellation and final states in the graph", () => {
  it.each(STEPS)(
    "maxSteps %i: a cancel in any waiting state ends the run with one tool message for every call asked for",
    (maxSteps) => {
      for (const s of setupsFor(maxSteps)) {
        const graph = explore(s);
        for (const state of vertices(graph).filter((v) => v.status === "active")) {
          const cancelled = movesOf(graph, state).find((m) => m.event === CANCEL)?.state;
          const before = messagesOf(state);
          const after = messagesOf(cancelled);
          expect(cancelled?.output?.status).toBe("cancelled");
          expect([cancelled?.context.steps, cancelled?.context.tokens]).toEqual([
            state.context.steps,
            state.context.tokens,
          ]);
          expect(after.slice(0, before.length)).toEqual(before);
          expect(after.slice(before.length)).toEqual(
            state.context.pendingCalls.map((c) => ({
              role: "tool",
              toolCallId: c.id,
              name: c.name,
              content: `ERROR: ${c.name} was not run to completion: the run was cancelled.`,
            })),
          );
          expect(traceProblem(after)).toBeNull();
        }
      }
    },
  );

  it.each(STEPS)(
    "maxSteps %i: in every final state every call of every assistant message has exactly one tool message",
    (maxSteps) => {
      for (const s of setupsFor(maxSteps)) {
        const finals = explore(s).paths.filter((p) => p.state.status === "done");
        expect(finals.length).toBeGreaterThan(0);
        const problems = finals.map((p) => traceProblem(messagesOf(p.state))).filter((p) => p !== null);
        expect(problems).toEqual([]);
        for (const p of finals) expect(p.state.context.pendingCalls).toEqual([]);
      }
    },
  );
});
