import { final, type Message, type ModelReply, ToolRegistry, toolCall } from "../../src/index.js";
import { type AgentSnapshot, messagesOf, resolveSettings } from "../../src/machine.js";
import { HUGE_BUDGET } from "./agent-graph.js";

// What the graph tests of a call that waits while it runs (a tool that asks, a call paused in its
// child) share: the machine with that tool (`waiting`) beside a plain tool and one that needs
// approval, two calls at once, and the checks of the list along a path.

/** The machine's input: `waiting` (the tool under test), `lookup` and `send` (needs approval), never run nor asked. */
export function waitingCallInput(waiting: string, maxSteps: number) {
  const never = () => {
    throw new Error("graph traversal must not run a tool");
  };
  const tools = new ToolRegistry();
  tools.register(waiting, "Waits while it runs.", { type: "object", properties: {} }, never);
  tools.register("lookup", "Looks up.", { type: "object", properties: {} }, never);
  tools.register("send", "Sends.", { type: "object", properties: {} }, never, { needsApproval: true });
  const model = () => {
    throw new Error("graph traversal must not call the model");
  };
  const settings = resolveSettings("Trip?", model, tools, { maxSteps, tokenBudget: HUGE_BUDGET, toolConcurrency: 2 });
  return { settings };
}

/** The replies at model call `step`: an answer, the waiting tool beside a risky call, and beside a plain one. */
export function waitingCallReplies(step: number, waiting: string, prefix: string): ModelReply[] {
  return [
    final(`answer ${step}`),
    { content: "", toolCalls: [toolCall(`s${step}`, "send", {}), toolCall(`${prefix}${step}`, waiting, {})] },
    { content: "", toolCalls: [toolCall(`${prefix}${step}`, waiting, {}), toolCall(`l${step}`, "lookup", {})] },
  ];
}

/** The list in brief: each message's role and the call ids it holds or answers. */
export function outlineOf(snapshot: AgentSnapshot): string {
  return messagesOf(snapshot.context.transcript)
    .map((m) =>
      m.role === "assistant" ? m.toolCalls.map((c) => c.id).join("+") : m.role === "tool" ? m.toolCallId : m.role[0],
    )
    .join(",");
}

/** The problems of a run with the list: a message changed or gone, or a call's tool messages not one each in call order. */
export function listProblems(states: readonly AgentSnapshot[]): string[] {
  const problems: string[] = [];
  let before: readonly Message[] = [];
  for (const state of states) {
    const messages = messagesOf(state.context.transcript);
    for (const [index, message] of before.entries()) {
      if (messages[index] !== message && JSON.stringify(messages[index]) !== JSON.stringify(message)) {
        problems.push(`message ${index} was edited`);
      }
    }
    before = messages;
  }
  for (const [index, message] of before.entries()) {
    if (message.role !== "assistant" || message.toolCalls.length === 0) continue;
    const answered = before.slice(index + 1, index + 1 + message.toolCalls.length).filter((m) => m.role === "tool");
    const ids = answered.map((m) => (m as { toolCallId: string }).toolCallId);
    const expected = message.toolCalls.map((call) => call.id).slice(0, ids.length);
    if (JSON.stringify(ids) !== JSON.stringify(expected)) problems.push(`tool messages ${ids} for calls ${expected}`);
    if (states.at(-1)?.status === "done" && ids.length !== message.toolCalls.length) {
      problems.push("a call lacks its message");
    }
  }
  return problems;
}
