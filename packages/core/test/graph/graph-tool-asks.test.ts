import { getSimplePaths } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import { pendingApprovals, pendingQuestions } from "../../src/decide/index.js";
import { agentMachine } from "../../src/index.js";
import type { AgentEvent, AgentSnapshot } from "../../src/machine.js";
import { CANCEL, callStates, eventsAlong, keyOf, type Path } from "./agent-graph.js";
import { listProblems, outlineOf, waitingCallInput, waitingCallReplies } from "./waiting-calls.js";

// The machine with a tool that asks while it runs (`book`), beside a plain tool and one that
// needs approval, walked over every run of two steps with two calls at once: each running call
// may finish or ask (once), each asking call be answered, each deciding call be approved. Every
// simple path is checked: the new wait is reached, alone and beside a decision; one tool message
// per call, in call order; messages never edited; never more model calls than maxSteps.

const MAX_STEPS = 2;

function events(snapshot: AgentSnapshot): AgentEvent[] {
  if (snapshot.status !== "active") return [];
  if (snapshot.matches("callingModel")) {
    const step = snapshot.context.steps + 1;
    return [
      ...waitingCallReplies(step, "book", "b").map((reply): AgentEvent => ({ type: "model.replied", reply })),
      CANCEL,
    ];
  }
  const { batch, toolAsks } = snapshot.context;
  if (batch === null) return [];
  const found: AgentEvent[] = [];
  for (const [index, state] of callStates(snapshot).entries()) {
    const call = batch.calls[index];
    if (call === undefined) continue;
    const asked = toolAsks.find((ask) => ask.callId === call.id);
    if (state === "deciding") found.push({ type: "approval.decided", callId: call.id, approved: true });
    if (state !== "running") continue;
    if (asked?.waiting != null) {
      found.push({ type: "question.answered", callId: call.id, answer: { city: "Lima" } });
      continue;
    }
    found.push({ type: "tool.finished", callId: call.id, content: `"${call.id} done"` });
    // Each asking call asks once: a second attempt with the answer finishes.
    if (call.name === "book" && asked === undefined) {
      found.push({ type: "tool.asked", callId: call.id, question: "Which city?" });
    }
  }
  return [...found, CANCEL];
}

function pathsOf(): Path[] {
  // The list's calls and answers are part of the key: a path's snapshots are then of one run, not merged from others.
  const serializeState = (snapshot: AgentSnapshot) =>
    JSON.stringify([keyOf(snapshot, false), snapshot.context.toolAsks, outlineOf(snapshot)]);
  return getSimplePaths(agentMachine, {
    input: waitingCallInput("book", MAX_STEPS),
    events,
    serializeState,
    limit: 50_000,
  });
}

describe("a tool that asks while it runs, on the graph", () => {
  const paths = pathsOf();

  it("reaches the wait for a tool's question alone and beside a decision, and lists it under the call's id", () => {
    let alone = 0;
    let beside = 0;
    for (const path of paths) {
      for (const { state } of path.steps) {
        const asking = state.context.toolAsks.filter((ask) => ask.waiting !== null).map((ask) => ask.callId);
        if (asking.length === 0 || state.status !== "active") continue;
        const questions = pendingQuestions(state.context).map((question) => question.id);
        expect(questions).toEqual(asking);
        if (state.matches({ executingTools: "awaitingInput" })) alone += 1;
        if (state.matches({ executingTools: "awaitingDecision" }) && pendingApprovals(state.context).length > 0) {
          beside += 1;
        }
      }
    }
    expect(alone).toBeGreaterThan(0);
    expect(beside).toBeGreaterThan(0);
  });

  it("one tool message per call in call order, messages never edited, never more model calls than maxSteps, every exit reached", () => {
    const values = new Set(paths.map((path) => JSON.stringify(path.state.value)));
    for (const exit of ["done", "stepLimit", "cancelled"]) expect(values).toContain(JSON.stringify(exit));
    for (const path of paths) {
      expect(listProblems(path.steps.map((step) => step.state))).toEqual([]);
      const replies = eventsAlong(path).filter((event) => event.type === "model.replied").length;
      expect(replies).toBeLessThanOrEqual(MAX_STEPS);
      // A call that asked and was answered is made again: its tool.finished follows its answer.
      const along = eventsAlong(path);
      for (const [index, event] of along.entries()) {
        if (event.type !== "question.answered") continue;
        const later = along.slice(index + 1);
        const finished = later.findIndex((e) => e.type === "tool.finished" && e.callId === event.callId);
        const asked = later.findIndex((e) => e.type === "tool.asked" && e.callId === event.callId);
        expect(asked).toBe(-1);
        if (path.state.matches("done")) expect(finished).toBeGreaterThanOrEqual(0);
      }
    }
  });
});
