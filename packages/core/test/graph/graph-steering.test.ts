import { getSimplePaths } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import { agentMachine, askUserTool, final, type ModelReply, ToolRegistry, toolCall } from "../../src/index.js";
import { type AgentEvent, type AgentSnapshot, resolveSettings } from "../../src/machine.js";
import { CANCEL, callStates, eventsAlong, HUGE_BUDGET, keyOf, type Path } from "./agent-graph.js";

// The machine with prepareStep and an ask-user tool, walked over every run of two steps: each step
// prepared as the run was set, with only `lookup` offered, or with the tool choice `none`; each
// reply an answer, a refusal, a lookup, a call of the tool that needs approval beside a question, or
// a question beside a lookup. Every simple path is checked.

const STEP_SETTINGS = [{}, { activeTools: ["lookup"] }, { toolChoice: "none" }] as const;

function registry(): ToolRegistry {
  const never = () => {
    throw new Error("graph traversal must not run a tool");
  };
  const tools = new ToolRegistry([askUserTool()]);
  tools.register("lookup", "Looks a word up.", { type: "object", properties: { q: { type: "string" } } }, never);
  tools.register("send", "Sends.", { type: "object", properties: { to: { type: "string" } } }, never, {
    needsApproval: true,
  });
  return tools;
}

function inputOf(maxSteps: number, tokenBudget: number) {
  const model = () => {
    throw new Error("graph traversal must not call the model");
  };
  const settings = resolveSettings("How hot is Pune?", model, registry(), {
    maxSteps,
    tokenBudget,
    prepareStep: () => undefined,
  });
  return { settings };
}

function repliesAt(step: number): ModelReply[] {
  const question = toolCall(`q${step}`, "ask_user", { question: "Which city?" });
  return [
    final(`answer ${step}`),
    { content: `refusal ${step}`, toolCalls: [], finishReason: "refusal" },
    { content: "", toolCalls: [toolCall(`s${step}`, "lookup", { q: "a" })] },
    { content: "", toolCalls: [toolCall(`a${step}`, "send", { to: "x" }), question] },
    { content: "", toolCalls: [question, toolCall(`l${step}`, "lookup", { q: "b" })] },
  ];
}

function preparedAt(step: number, settings: (typeof STEP_SETTINGS)[number]): AgentEvent {
  return { type: "step.prepared", step, ...settings } as AgentEvent;
}

function events(snapshot: AgentSnapshot): AgentEvent[] {
  if (snapshot.status !== "active") return [];
  const step = snapshot.context.steps + 1;
  if (snapshot.matches("preparingStep")) {
    return [...STEP_SETTINGS.map((settings) => preparedAt(step, settings)), CANCEL];
  }
  if (snapshot.matches("callingModel")) {
    const replies = repliesAt(step).map((reply): AgentEvent => ({ type: "model.replied", reply }));
    // A call not yet prepared asks prepareStep first: its answer is the reply, or settings that change something.
    const { prepared, attempt } = snapshot.context;
    const asks = attempt === null && prepared?.event.step !== step;
    return [...(asks ? STEP_SETTINGS.map((settings) => preparedAt(step, settings)) : []), ...replies, CANCEL];
  }
  const { batch } = snapshot.context;
  if (batch === null) return [];
  const found: AgentEvent[] = [];
  for (const [index, state] of callStates(snapshot).entries()) {
    const call = batch.calls[index];
    if (call === undefined) continue;
    if (state === "running") found.push({ type: "tool.finished", callId: call.id, content: "{}" });
    if (state !== "deciding") continue;
    if (call.name === "ask_user") found.push({ type: "question.answered", callId: call.id, answer: "Lima" });
    else found.push({ type: "approval.decided", callId: call.id, approved: true });
  }
  return [...found, CANCEL];
}

function pathsOf(maxSteps: number, tokenBudget: number): Path[] {
  const serializeState = (snapshot: AgentSnapshot) =>
    JSON.stringify([keyOf(snapshot, tokenBudget !== HUGE_BUDGET), snapshot.context.prepared?.event ?? null]);
  return getSimplePaths(agentMachine, { input: inputOf(maxSteps, tokenBudget), events, serializeState, limit: 50_000 });
}

/** The names the model may call in the step a snapshot is in, as the logged decision says (null: any). */
function allowedAt(snapshot: AgentSnapshot, step: number): readonly string[] | null {
  const event = snapshot.context.prepared?.event;
  if (event === undefined || event.step !== step) return null;
  if (event.toolChoice === "none") return [];
  return event.activeTools ?? null;
}

describe("prepareStep and askUserTool on the graph", () => {
  const paths = pathsOf(2, HUGE_BUDGET);

  it("reaches every exit and both pauses; a step is prepared at most once, before its call, and never more than maxSteps calls", () => {
    const values = new Set(paths.map((path) => JSON.stringify(path.state.value)));
    for (const exit of ["done", "refused", "stepLimit", "cancelled"]) expect(values).toContain(JSON.stringify(exit));
    expect(values).toContain(JSON.stringify({ executingTools: "awaitingInput" }));
    expect(values).toContain(JSON.stringify({ executingTools: "awaitingDecision" }));
    for (const path of paths) {
      const along = eventsAlong(path);
      const replies = along.filter((event) => event.type === "model.replied").length;
      expect(replies).toBeLessThanOrEqual(2);
      // Each step's settings come before its reply, once at most, for the call about to be made.
      let made = 0;
      const preparedSteps: number[] = [];
      for (const event of along) {
        if (event.type === "model.replied") made += 1;
        if (event.type === "step.prepared") {
          expect(event.step).toBe(made + 1);
          preparedSteps.push(event.step);
        }
      }
      expect(new Set(preparedSteps).size).toBe(preparedSteps.length);
    }
  });

  it("runs no tool and asks no question outside what the step offered: those calls are answered with the unknown-tool error", () => {
    let restricted = 0;
    for (const path of paths) {
      for (const { state } of path.steps) {
        const { batch, steps } = state.context;
        if (batch === null || !state.matches("executingTools")) continue;
        // The reply that made this batch was model call `steps`, prepared before it.
        const allowed = allowedAt(state, steps);
        if (allowed === null) continue;
        restricted += 1;
        for (const [index, where] of callStates(state).entries()) {
          const call = batch.calls[index];
          if (call === undefined || allowed.includes(call.name)) continue;
          expect(where).toBe("answered");
          expect(batch.contentOf(index)).toMatch(/^ERROR: unknown tool /);
        }
      }
    }
    expect(restricted).toBeGreaterThan(0);
  });

  it("reaches tokenBudget, never stepLimit, with a budget that the first step's prompt does not fit", () => {
    const tight = pathsOf(2, 50);
    const values = new Set(tight.map((path) => JSON.stringify(path.state.value)));
    expect(values).toContain(JSON.stringify("tokenBudget"));
    expect(values).not.toContain(JSON.stringify("stepLimit"));
    for (const path of tight) expect(eventsAlong(path).some((event) => event.type === "model.replied")).toBe(false);
  });
});
