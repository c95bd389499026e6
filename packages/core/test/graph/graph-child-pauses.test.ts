import { getSimplePaths } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import { transition } from "xstate";
import { childPending, childQuestions, pendingApprovals, pendingRequests } from "../../src/decide/index.js";
import { agentMachine, toolCall } from "../../src/index.js";
import type { AgentEvent, AgentSnapshot } from "../../src/machine.js";
import { pausedResult } from "../../src/run/api/run-agent.js";
import { CANCEL, callStates, eventsAlong, keyOf, type Path } from "./agent-graph.js";
import { listProblems, outlineOf, waitingCallInput, waitingCallReplies } from "./waiting-calls.js";

// The machine with a tool whose call runs a child that may pause (`research`), beside a plain
// tool and one that needs approval, walked over every run of two steps with two calls at once:
// each running research call may finish or pause in its child (on a decision below it, or on a
// question only), each paused call be resumed, each deciding call be approved. Every simple path
// is checked: the new wait is reached, alone and beside the run's own decision, with the status
// derived as for the run's own waits; a paused call is never run before `tool.resumed`; one tool
// message per call, in call order; never more model calls than maxSteps.

const MAX_STEPS = 2;

const belowDecision = (callId: string): AgentEvent => ({
  type: "tool.paused",
  callId,
  pending: [toolCall(`${callId}/e1`, "send_email", { to: "ana" })],
  questions: [],
});
const belowQuestion = (callId: string): AgentEvent => ({
  type: "tool.paused",
  callId,
  pending: [],
  questions: [{ id: `${callId}/q1`, question: "Which city?" }],
});

function events(snapshot: AgentSnapshot): AgentEvent[] {
  if (snapshot.status !== "active") return [];
  if (snapshot.matches("callingModel")) {
    const step = snapshot.context.steps + 1;
    return [
      ...waitingCallReplies(step, "research", "r").map((reply): AgentEvent => ({ type: "model.replied", reply })),
      CANCEL,
    ];
  }
  const { batch, childPauses } = snapshot.context;
  if (batch === null) return [];
  const found: AgentEvent[] = [];
  for (const [index, state] of callStates(snapshot).entries()) {
    const call = batch.calls[index];
    if (call === undefined) continue;
    if (state === "deciding") found.push({ type: "approval.decided", callId: call.id, approved: true });
    if (state !== "running") continue;
    if (childPauses.some((paused) => paused.callId === call.id)) {
      found.push({ type: "tool.resumed", callId: call.id });
      continue;
    }
    found.push({ type: "tool.finished", callId: call.id, content: `"${call.id} done"` });
    if (call.name === "research") found.push(belowDecision(call.id), belowQuestion(call.id));
  }
  return [...found, CANCEL];
}

function pathsOf(): Path[] {
  const serializeState = (snapshot: AgentSnapshot) =>
    JSON.stringify([keyOf(snapshot, false), snapshot.context.childPauses, outlineOf(snapshot)]);
  return getSimplePaths(agentMachine, {
    input: waitingCallInput("research", MAX_STEPS),
    events,
    serializeState,
    limit: 50_000,
  });
}

describe("a call paused in its child, on the graph", () => {
  const paths = pathsOf();

  it("reaches the wait for a paused child alone and beside the run's own decision, its status derived as for the run's own waits", () => {
    const reached = { decisionBelow: 0, questionBelow: 0, beside: 0 };
    for (const path of paths) {
      for (const { state } of path.steps) {
        const { childPauses } = state.context;
        if (childPauses.length === 0 || state.status !== "active") continue;
        const requests = pendingRequests(state);
        for (const paused of childPauses) {
          // The paused call asks to be resumed, and is never run while it waits.
          expect(requests).toContainEqual(expect.objectContaining({ type: "resumeChild", pending: paused.pending }));
          expect(requests.some((r) => r.type === "runTool" && r.call.id === paused.callId)).toBe(false);
        }
        if (state.matches({ executingTools: "runningTools" })) continue;
        const result = pausedResult(state.context);
        const chained = childPending(state.context).map((call) => call.id);
        expect(result.pendingApprovals?.map((call) => call.id)).toEqual([
          ...pendingApprovals(state.context).map((call) => call.id),
          ...chained,
        ]);
        expect(result.pendingQuestions?.map((q) => q.id) ?? []).toEqual(
          expect.arrayContaining(childQuestions(state.context).map((q) => q.id)),
        );
        if (chained.length > 0 || pendingApprovals(state.context).length > 0) {
          expect(state.matches({ executingTools: "awaitingDecision" })).toBe(true);
          expect(result.status).toBe("awaiting_approval");
        } else {
          expect(state.matches({ executingTools: "awaitingInput" })).toBe(true);
          expect(result.status).toBe("awaiting_input");
        }
        if (chained.length > 0) reached.decisionBelow += 1;
        else reached.questionBelow += 1;
        if (pendingApprovals(state.context).length > 0) reached.beside += 1;
      }
    }
    expect(reached.decisionBelow).toBeGreaterThan(0);
    expect(reached.questionBelow).toBeGreaterThan(0);
    expect(reached.beside).toBeGreaterThan(0);
  });

  it("one tool message per call in call order, never more model calls than maxSteps, a paused call answered only after it was resumed", () => {
    const values = new Set(paths.map((path) => JSON.stringify(path.state.value)));
    for (const exit of ["done", "stepLimit", "cancelled"]) expect(values).toContain(JSON.stringify(exit));
    for (const path of paths) {
      expect(listProblems(path.steps.map((step) => step.state))).toEqual([]);
      const along = eventsAlong(path);
      expect(along.filter((event) => event.type === "model.replied").length).toBeLessThanOrEqual(MAX_STEPS);
      const paused = new Set<string>();
      for (const event of along) {
        if (event.type === "tool.paused") paused.add(event.callId);
        if (event.type === "tool.resumed") paused.delete(event.callId);
        if (event.type === "tool.finished") expect(paused.has(event.callId)).toBe(false);
      }
    }
  });

  it("refuses a result, a question or a second pause for a call paused in its child", () => {
    const path = paths.find((each) => each.state.context.childPauses.length > 0 && each.state.status === "active");
    if (path === undefined) throw new Error("no path ends with a paused call");
    const { state } = path;
    const callId = (state.context.childPauses[0] as { callId: string }).callId;
    for (const event of [
      { type: "tool.finished", callId, content: "late" },
      { type: "tool.asked", callId, question: "Which?" },
      belowDecision(callId),
    ] as AgentEvent[]) {
      const [next] = transition(agentMachine, state, event);
      expect(next.value).toEqual(state.value);
      expect(next.context.childPauses).toBe(state.context.childPauses);
    }
  });
});
