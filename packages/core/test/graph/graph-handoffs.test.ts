import { type AdjacencyMap, getAdjacencyMap } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import { type ActorLogic, initialTransition, transition } from "xstate";
import { agentMachine, handoff, type ModelReply, ToolRegistry, toolCall } from "../../src/index.js";
import {
  type AgentEvent,
  type AgentMachineInput,
  type AgentSnapshot,
  messagesOf,
  resolveSettings,
} from "../../src/machine.js";
import { CANCEL, callStates, eventsAlong, modelReplies, type Path, simplePaths } from "./agent-graph.js";

// Two agents that hand the conversation to each other, walked over every run to a few steps: each
// reply may answer, hand off, hand off twice, or hand off beside a lookup (before, after, between
// two handoffs); each running call may finish in any order; the caller may cancel in every wait.
// Every simple path is checked against the one rule (the other calls run, the first handoff wins,
// every later one gets ERROR:), the handoff waits for every call of its reply, and the model is
// never called more than maxSteps times whichever agents answered.

const never = () => {
  throw new Error("graph traversal must not run anything");
};
const LOOKUP = { type: "object", properties: { q: { type: "string" } } } as const;

function inputOf(maxSteps: number, toolConcurrency?: number): AgentMachineInput {
  const triageTools = new ToolRegistry();
  const billingTools = new ToolRegistry();
  triageTools.register("lookup", "Looks up.", LOOKUP, never);
  billingTools.register("lookup", "Looks up.", LOOKUP, never);
  billingTools.register("refund", "Refunds.", LOOKUP, never);
  triageTools.add(handoff({ name: "billing", model: never, registry: billingTools, system: "billing" }));
  billingTools.add(handoff({ name: "triage", model: never, registry: triageTools, system: "triage" }));
  const options = { maxSteps, tokenBudget: 1_000_000, ...(toolConcurrency === undefined ? {} : { toolConcurrency }) };
  return { settings: resolveSettings("Refund 7.", never, triageTools, options) };
}

const TRANSFER = { triage: "transfer_to_billing", billing: "transfer_to_triage" } as const;

/** The replies the agent answering may give at model call `step`. */
function repliesAt(agent: "triage" | "billing", step: number): ModelReply[] {
  const h = (n: number) => toolCall(`h${step}${n}`, TRANSFER[agent]);
  const lookup = toolCall(`l${step}`, "lookup", { q: "7" });
  return [
    { content: `answer ${step}`, toolCalls: [] },
    { content: "", toolCalls: [h(1)] },
    { content: "", toolCalls: [h(1), h(2)] },
    { content: "", toolCalls: [lookup, h(1)] },
    { content: "", toolCalls: [h(1), lookup, h(2)] },
  ];
}

function agentOf(snapshot: AgentSnapshot): "triage" | "billing" {
  return snapshot.context.handoffs?.agent as "triage" | "billing";
}

function eventsFor(snapshot: AgentSnapshot): AgentEvent[] {
  if (snapshot.status !== "active") return [];
  if (snapshot.matches("callingModel")) {
    const replies = repliesAt(agentOf(snapshot), snapshot.context.steps + 1);
    return [...replies.map((reply): AgentEvent => ({ type: "model.replied", reply })), CANCEL];
  }
  if (snapshot.matches("handingOff")) {
    const pending = snapshot.context.handoffs?.pending;
    if (pending == null) return [CANCEL];
    return [{ type: "handoff", callId: pending.call.id, from: agentOf(snapshot), to: pending.to }, CANCEL];
  }
  const { batch } = snapshot.context;
  if (batch === null) return [];
  const found: AgentEvent[] = [];
  for (const [index, state] of callStates(snapshot).entries()) {
    const call = batch.calls[index];
    if (state === "running" && call !== undefined) {
      found.push({ type: "tool.finished", callId: call.id, content: `"${call.id} done"` });
    }
  }
  return [...found, CANCEL];
}

function keyOf(snapshot: AgentSnapshot): string {
  const { steps, batch, handoffs, transcript } = snapshot.context;
  const calls = batch?.calls.map((call, index) => [call.id, batch.stateOf(index)]);
  return JSON.stringify([
    snapshot.value,
    steps,
    calls,
    batch?.appended,
    handoffs?.agent,
    handoffs?.pending?.call.id,
    transcript.length,
  ]);
}

type Adjacency = AdjacencyMap<AgentSnapshot, AgentEvent>;
const graphLogic = agentMachine as unknown as ActorLogic<AgentSnapshot, AgentEvent, AgentMachineInput>;

function explore(maxSteps: number, toolConcurrency?: number): { adjacency: Adjacency; paths: Path[] } {
  const input = inputOf(maxSteps, toolConcurrency);
  const adjacency = getAdjacencyMap(graphLogic, { input, events: eventsFor, serializeState: keyOf, limit: 50_000 });
  const start = initialTransition(agentMachine, input)[0];
  return { adjacency, paths: simplePaths(adjacency, start, keyOf) };
}

const SETUPS = [
  [1, undefined],
  [2, undefined],
  [3, undefined],
  [2, 1],
  [3, 1],
] as const;

describe("handoffs on the graph", () => {
  it.each(SETUPS)(
    "reach every exit and the handoff wait, and never call the model more than maxSteps (%i steps, concurrency %s)",
    (maxSteps, concurrency) => {
      const { adjacency, paths } = explore(maxSteps, concurrency);
      const states = Object.values(adjacency).map((entry) => entry.state);
      const values = new Set(states.map((state) => JSON.stringify(state.value)));
      for (const value of ['"done"', '"stepLimit"', '"cancelled"', '"handingOff"']) expect(values).toContain(value);
      expect(paths.length).toBeGreaterThan(maxSteps * 10);
      for (const path of paths) expect(modelReplies(eventsAlong(path))).toBeLessThanOrEqual(maxSteps);
      // The answering agent changes only by a handoff, and every handoff is to the agent the other's tool names.
      for (const path of paths) {
        for (const [index, step] of path.steps.entries()) {
          const before = path.steps[index - 1]?.state;
          if (before === undefined) continue;
          const moved = agentOf(before) !== agentOf(step.state);
          expect(moved).toBe(step.event.type === "handoff" && agentOf(before) !== (step.event as { to: string }).to);
        }
      }
    },
  );

  it.each(SETUPS)(
    "give every reply one rule: the other calls run, the first handoff wins, the rest get ERROR: (%i steps, concurrency %s)",
    (maxSteps, concurrency) => {
      const { paths } = explore(maxSteps, concurrency);
      let checked = 0;
      for (const path of paths) {
        for (const [index, step] of path.steps.entries()) {
          if (step.event.type !== "model.replied") continue;
          const before = path.steps[index - 1]?.state as AgentSnapshot;
          const { toolCalls } = step.event.reply;
          const handoffs = toolCalls.filter((call) => call.name.startsWith("transfer_to_"));
          if (handoffs.length === 0) continue;
          checked += 1;
          const { batch, handoffs: state } = step.state.context;
          // The first handoff is answered at once and waits to be made; the others are refused at once.
          expect(state?.pending?.call.id).toBe(handoffs[0]?.id);
          expect(state?.pending?.to).toBe(agentOf(before) === "triage" ? "billing" : "triage");
          for (const [at, call] of (batch?.calls ?? []).entries()) {
            if (call.id === handoffs[0]?.id) expect(batch?.contentOf(at)).toBe(`transferred to ${state?.pending?.to}`);
            else if (call.name.startsWith("transfer_to_")) {
              expect(batch?.contentOf(at)).toMatch(/^ERROR: only one handoff is made per reply/);
              expect(batch?.isErrorAt(at)).toBe(true);
            } else expect(batch?.stateOf(at)).toMatch(/^(running|waiting)$/);
          }
        }
      }
      expect(checked).toBeGreaterThan(0);
    },
  );

  it.each(SETUPS)(
    "make a handoff only once every call of its reply has its tool message, and then offer the target's tools (%i steps, concurrency %s)",
    (maxSteps, concurrency) => {
      const { paths } = explore(maxSteps, concurrency);
      for (const path of paths) {
        for (const [index, step] of path.steps.entries()) {
          if (!step.state.matches("handingOff")) continue;
          const { batch, transcript } = step.state.context;
          expect(batch?.appended).toBe(batch?.calls.length);
          const messages = messagesOf(transcript);
          const owed = messages.flatMap((m) => (m.role === "assistant" ? m.toolCalls.map((c) => c.id) : []));
          const answered = messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : []));
          expect(answered).toEqual(owed);
          const next = path.steps[index + 1];
          if (next?.event.type !== "handoff") continue;
          const names = next.state.context.specs.map((spec) => spec.name);
          expect(names).toContain(agentOf(next.state) === "billing" ? "refund" : "transfer_to_billing");
          expect(next.state.value).not.toBe("handingOff");
        }
      }
    },
  );

  it("takes no handoff event but the one it waits for", () => {
    const input = inputOf(2);
    let [snapshot] = initialTransition(agentMachine, input);
    [snapshot] = transition(agentMachine, snapshot, {
      type: "model.replied",
      reply: { content: "", toolCalls: [toolCall("h1", "transfer_to_billing")] },
    });
    expect(snapshot.value).toBe("handingOff");
    for (const wrong of [
      { type: "handoff", callId: "h2", from: "triage", to: "billing" },
      { type: "handoff", callId: "h1", from: "billing", to: "billing" },
      { type: "handoff", callId: "h1", from: "triage", to: "triage" },
    ] as const) {
      expect(transition(agentMachine, snapshot, wrong)[0].value).toBe("handingOff");
    }
    const [after] = transition(agentMachine, snapshot, {
      type: "handoff",
      callId: "h1",
      from: "triage",
      to: "billing",
    });
    expect(after.value).toBe("callingModel");
    expect(after.context.handoffs?.agent).toBe("billing");
  });
});
