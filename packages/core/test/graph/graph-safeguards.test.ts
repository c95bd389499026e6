import { getShortestPaths } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import { agentMachine, contentText, type Message } from "../../src/index.js";
import type { AgentSnapshot } from "../../src/machine.js";
import { traceProblem } from "../run/trace.js";
import {
  CANCEL,
  callStates,
  eventsAlong,
  explore,
  FAMILIES,
  FINAL_STATES,
  type Graph,
  movesOf,
  outline,
  RISKY,
  reachedFinals,
  type Setup,
  SHALLOW,
  setupsFor,
  tightestStepLimitBudget,
  vertices,
} from "./agent-graph.js";
import { repeatProblems } from "./graph-rules.js";
import { step } from "./graph-runs.js";

function messagesOf(snapshot: AgentSnapshot | undefined): readonly Message[] {
  return snapshot?.output?.messages ?? snapshot?.context.transcript.toJSON() ?? [];
}

const DENIED = `ERROR: the user denied this call to ${RISKY} (not now), so it was not run. Do not ask for it again; answer without it or ask the user what to do.`;

describe("every exit is a final state the graph reaches", () => {
  // Repeats stop the run after two lookups in a row; the budget fits only the cheapest run of three steps.
  const setup = { maxSteps: 3, repeatLimit: 2, policy: "stop", toolConcurrency: 1 } as const;
  const tokenBudget = tightestStepLimitBudget(setup);

  it("one graph with approval, a repeat limit of 2, the stop policy and a tight budget reaches all six", () => {
    expect(reachedFinals(explore({ ...setup, tokenBudget }))).toEqual([...FINAL_STATES].sort());
  });

  it.each([
    ["one at a time", 1],
    ["all at once", undefined],
  ] as const)("%s: the shortest way to each exit, as getShortestPaths finds it", (_, cap) => {
    const parallel = {
      ...setup,
      menu: "parallel",
      ...(cap === undefined ? { toolConcurrency: undefined } : {}),
    } as const;
    const graph = explore({ ...parallel, tokenBudget: tightestStepLimitBudget(parallel) });
    const { input, events, serializeState } = graph;
    const shortest = new Map<string, string[]>();
    for (const path of getShortestPaths(agentMachine, { input, events, serializeState })) {
      const value = String(path.state.value);
      const known = shortest.get(value);
      if (path.state.status === "done" && (known === undefined || known.length > path.steps.length - 1)) {
        shortest.set(value, outline(eventsAlong(path)));
      }
    }
    expect(Object.fromEntries(shortest)).toEqual({
      done: ["answer"],
      refused: ["refusal"],
      cancelled: ["cancel"],
      repeatedCall: ["lookup", "result", "lookup"],
      // Denied first, then the unknown tool's result: one at a time, the unknown tool waits for the decision.
      tokenBudget: ["lookup", "result", "send+nope", "deny", "result"],
      stepLimit: ["lookup", "result", "send+nope", "approve", "result", "result", "lookup", "result"],
    });
  });

  it.each(SHALLOW)(
    "%s, maxSteps %i: repeatedCall is reached only under the stop policy, at the repeatLimit-th lookup in a row",
    (_, maxSteps, { base }) => {
      for (const s of setupsFor(maxSteps, base)) {
        const repeated = explore(s).paths.filter((p) => p.state.value === "repeatedCall");
        if (s.policy !== "stop" || maxSteps < 3) expect(repeated).toEqual([]);
        else expect(repeated.length).toBeGreaterThan(0);
        for (const path of repeated) {
          // The calls asked for, up to the first call of the last reply: the last three are the same lookup.
          const replies = eventsAlong(path).flatMap((e) => (e.type === "model.replied" ? [e.reply.toolCalls] : []));
          const asked = [...replies.slice(0, -1).flat(), ...(replies.at(-1) ?? []).slice(0, 1)];
          const a = JSON.stringify(["lookup", { q: "a" }]);
          expect(asked.slice(-3).map((c) => JSON.stringify([c.name, c.args]))).toEqual([a, a, a]);
        }
      }
    },
  );
});

/** The tool messages after the last assistant message of a snapshot's list. */
function lastToolMessages(snapshot: AgentSnapshot | undefined): Message[] {
  const messages = messagesOf(snapshot);
  const at = messages.findLastIndex((m) => m.role === "assistant");
  return messages.slice(at + 1).filter((m) => m.role === "tool");
}

describe("approval in the graph", () => {
  it.each(SHALLOW.filter(([, maxSteps]) => maxSteps % 2 === 0 || maxSteps === 3))(
    "%s, maxSteps %i: a waiting call moves on with its decision: approved it runs, denied it is answered and never runs",
    (_, maxSteps, { base }) => {
      for (const s of setupsFor(maxSteps, base)) {
        const graph = explore(s);
        const waiting = vertices(graph).filter((v) => v.status === "active" && callStates(v).includes("deciding"));
        expect(waiting.length).toBeGreaterThan(0);
        for (const state of waiting) checkDecisions(graph, state);
      }
    },
  );
});

/** Both decisions on every call that waits in `state`: the call moves on, and no other call does. */
function checkDecisions(graph: Graph, state: AgentSnapshot): void {
  const batch = state.context.batch;
  const before = callStates(state);
  for (const [index, stand] of before.entries()) {
    if (stand !== "deciding") continue;
    const call = batch?.calls[index];
    expect(call?.name).toBe(RISKY);
    const on = (approved: boolean) =>
      movesOf(graph, state).find(
        ({ event }) => event.type === "approval.decided" && event.callId === call?.id && event.approved === approved,
      );
    const approved = on(true);
    const denied = on(false);
    expect(approved).toBeDefined();
    expect(denied).toBeDefined();
    if (approved === undefined || denied === undefined) continue;
    // Approved: the call runs, asked for once, and nothing else changes but the calls taken up after it.
    const ran = step(state, approved.event);
    expect(ran.requests.filter((r) => r.request.type === "runTool" && r.request.call.name === RISKY)).toEqual([
      { request: { type: "runTool", call }, index },
    ]);
    expect(callStates(approved.state)[index]).toBe("running");
    expect(lastToolMessages(approved.state)).toEqual(lastToolMessages(state));
    // Denied: the call is answered with the denial, in its place, and never runs.
    expect(callStates(denied.state)[index]).toBe("answered");
    const answered = lastToolMessages(denied.state);
    const appended = before.slice(0, index).every((s) => s === "answered");
    expect(answered.length > lastToolMessages(state).length).toBe(appended);
    if (appended) {
      expect(answered[index]).toEqual({
        role: "tool",
        toolCallId: call?.id,
        name: RISKY,
        content: DENIED,
        isError: true,
      });
    }
    for (const [other, stand] of before.entries()) {
      if (other === index || stand === "waiting") continue;
      expect(callStates(denied.state)[other]).toBe(stand);
      expect(callStates(approved.state)[other]).toBe(stand);
    }
  }
}

describe("repeated calls in the graph", () => {
  it.each(SHALLOW)(
    "%s, maxSteps %i: a lookup repeated repeatLimit times in a row never runs; the refusal says why",
    (_, maxSteps, { base }) => {
      for (const s of setupsFor(maxSteps, base)) {
        const graph = explore(s);
        for (const path of graph.paths.filter((p) => p.state.status === "done")) {
          expect(repeatProblems(s, path)).toEqual([]);
          const tools = messagesOf(path.state).filter((m) => m.role === "tool");
          const refusals = tools.filter((m) => contentText(m.content).includes("with the same arguments"));
          for (const m of refusals) {
            expect(m.content).toBe(
              "ERROR: lookup was asked for with the same arguments 3 times in a row, so it was not run again: the result would not change. Use the result you already have, call it with different arguments, or answer.",
            );
          }
          if (s.policy !== "refuse") expect(refusals).toEqual([]);
        }
      }
    },
  );

  it.each(FAMILIES.map((f) => [f.name, f] as const))(
    "%s: with the stop policy the run ends in repeatedCall, the calls before the repeat answered, the rest closed",
    (_, { base }) => {
      const s: Setup = { ...base, maxSteps: 3, tokenBudget: 1_000_000, policy: "stop", repeatLimit: 2 };
      const ends = explore(s).paths.filter((p) => p.state.value === "repeatedCall");
      expect(ends.length).toBeGreaterThan(0);
      for (const path of ends) {
        const messages = messagesOf(path.state);
        expect(traceProblem(messages)).toBeNull();
        const last = messages.findLast((m) => m.role === "assistant");
        const calls = last?.role === "assistant" ? last.toolCalls : [];
        const stop = calls.findIndex((c) => c.name === "lookup" && c.args.q === "a");
        const closed = "ERROR: lookup was not run to completion: the run stopped because a call was repeated.";
        expect(lastToolMessages(path.state).map((m) => m.content)).toEqual(
          calls.map((c, i) => (i < stop ? `{"for":"${c.id}"}` : closed.replace("lookup", c.name))),
        );
        expect(path.state.output?.status).toBe("repeated_call");
      }
    },
  );
});

describe("cancellation and final states in the graph", () => {
  it.each(SHALLOW)(
    "%s, maxSteps %i: a cancel in any waiting state gives every call its tool message: its own observation, or why not",
    (_, maxSteps, { base }) => {
      for (const s of setupsFor(maxSteps, base)) {
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
          const batch = state.context.batch;
          const open = state.value === "callingModel" || batch === null ? [] : batch.calls.slice(batch.appended);
          expect(after.slice(before.length)).toEqual(
            open.map((c, i) => ({
              role: "tool",
              toolCallId: c.id,
              name: c.name,
              content:
                batch?.contentOf((batch?.appended ?? 0) + i) ??
                `ERROR: ${c.name} was not run to completion: the run was cancelled.`,
              ...(contentText(batch?.contentOf((batch?.appended ?? 0) + i) ?? "").startsWith("{")
                ? {}
                : { isError: true }),
            })),
          );
          expect(traceProblem(after)).toBeNull();
        }
      }
    },
  );

  it.each(SHALLOW)(
    "%s, maxSteps %i: in every final state every call of every assistant message has exactly one tool message",
    (_, maxSteps, { base }) => {
      for (const s of setupsFor(maxSteps, base)) {
        const finals = explore(s).paths.filter((p) => p.state.status === "done");
        expect(finals.length).toBeGreaterThan(0);
        const problems = finals.map((p) => traceProblem(messagesOf(p.state))).filter((p) => p !== null);
        expect(problems).toEqual([]);
        for (const p of finals) {
          const batch = p.state.context.batch;
          expect(batch === null || batch.appended === batch.calls.length).toBe(true);
        }
      }
    },
  );
});
