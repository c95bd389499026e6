import { and, assertEvent, assign, sendTo, setup } from "xstate";
import { type AgentContext, type AgentMachineInput, initialContext, promptTokens, resultOf } from "./agent-context.js";
import { tokensOfLength } from "./count-tokens.js";
import { type EffectEvent, type EffectPorts, runEffects } from "./run-effects.js";
import { appendMessage, messagesOf } from "./transcript.js";
import type { AgentResult, AgentStatus, Message } from "./types.js";

/** The events `agentMachine` accepts: what the model replied, and what each tool call gave. */
export type AgentEvent = EffectEvent;

/**
 * The agent loop as a statechart. `budgetCheck` decides, before every model call, whether the step
 * limit or the token budget ends the run; `callingModel` waits for `model.replied`; a reply without
 * tool calls is the answer (`done`), otherwise `executingTools` appends one tool message per call,
 * in call order, and goes back to `budgetCheck`. Every guard and assign is a pure function of
 * context and event; the effects live in the `runEffects` actor invoked at the root, so the same
 * events folded through `transition()` rebuild a run without calling anything.
 */
export const agentMachine = setup({
  types: {
    input: {} as AgentMachineInput,
    context: {} as AgentContext,
    events: {} as AgentEvent,
    output: {} as AgentResult,
    children: {} as { effects: "runEffects" },
  },
  actors: { runEffects },
  guards: {
    isStepLimitReached: ({ context }) => context.steps >= context.maxSteps,
    isOverBudget: ({ context }) => context.tokens + promptTokens(context) > context.tokenBudget,
    hasToolCalls: ({ event }) => {
      assertEvent(event, "model.replied");
      return event.reply.toolCalls.length > 0;
    },
    isNextResult: ({ context, event }) => {
      assertEvent(event, "tool.finished");
      return context.pendingCalls[0]?.id === event.callId;
    },
    isLastResult: ({ context }) => context.pendingCalls.length === 1,
  },
  actions: {
    requestModelReply: sendTo("effects", ({ context }) => ({
      type: "callModel" as const,
      messages: messagesOf(context.transcript),
      specs: context.specs,
      step: context.steps + 1,
    })),
    appendReply: assign(({ context, event }) => {
      assertEvent(event, "model.replied");
      const { content, toolCalls } = event.reply;
      const assistant: Message = { role: "assistant", content, toolCalls: toolCalls.map((call) => ({ ...call })) };
      const transcript = appendMessage(context.transcript, assistant);
      const replyTokens = tokensOfLength(transcript.chars - context.transcript.chars);
      return {
        transcript,
        steps: context.steps + 1,
        tokens: context.tokens + promptTokens(context) + replyTokens,
        pendingCalls: assistant.toolCalls,
        answer: toolCalls.length === 0 ? content : null,
      };
    }),
    requestToolRuns: sendTo("effects", ({ context }) => ({ type: "runTools" as const, calls: context.pendingCalls })),
    appendToolResult: assign(({ context, event }) => {
      assertEvent(event, "tool.finished");
      const [call, ...rest] = context.pendingCalls;
      if (call === undefined) return {};
      const message: Message = { role: "tool", toolCallId: call.id, name: call.name, content: event.content };
      return { transcript: appendMessage(context.transcript, message), pendingCalls: rest };
    }),
    finish: assign((_, params: { status: AgentStatus }) => ({ status: params.status })),
  },
}).createMachine({
  id: "agent",
  context: ({ input }) => initialContext(input),
  invoke: { id: "effects", src: "runEffects", input: ({ event }) => portsOf(event) },
  initial: "budgetCheck",
  states: {
    budgetCheck: {
      always: [
        { guard: "isStepLimitReached", target: "stepLimit" },
        { guard: "isOverBudget", target: "tokenBudget" },
        { target: "callingModel" },
      ],
    },
    callingModel: {
      entry: "requestModelReply",
      on: {
        "model.replied": [
          { guard: "hasToolCalls", target: "executingTools", actions: "appendReply" },
          { target: "done", actions: "appendReply" },
        ],
      },
    },
    executingTools: {
      entry: "requestToolRuns",
      on: {
        "tool.finished": [
          { guard: and(["isNextResult", "isLastResult"]), target: "budgetCheck", actions: "appendToolResult" },
          { guard: "isNextResult", actions: "appendToolResult" },
        ],
      },
    },
    done: { type: "final", entry: { type: "finish", params: { status: "done" } } },
    stepLimit: { type: "final", entry: { type: "finish", params: { status: "step_limit" } } },
    tokenBudget: { type: "final", entry: { type: "finish", params: { status: "token_budget" } } },
  },
  output: ({ context }) => resultOf(context),
});

/**
 * The root invoke starts on the machine's init event, which carries the input with the ports.
 * Logged settings alone (pure replay) have none: the effects actor is then described, never run.
 */
function portsOf(event: { type: string }): EffectPorts | null {
  const { input } = event as { type: string; input?: AgentMachineInput };
  if (input === undefined || !("registry" in input)) return null;
  const { model, registry, journal } = input;
  return journal === undefined ? { model, registry } : { model, registry, journal };
}
