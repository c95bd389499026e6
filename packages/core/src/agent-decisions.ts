import { type AgentContext, promptTokens } from "./agent-context.js";
import { callKey } from "./call-key.js";
import { tokensOfLength } from "./count-tokens.js";
import type { EffectEvent } from "./run-effects.js";
import { appendCopy, appendMessage, lastMessage } from "./transcript.js";
import type { Decision, Message, ModelReply, ToolCall } from "./types.js";

/**
 * The machine's decisions as plain functions of context (and event data): no clock, no
 * randomness, no I/O. `agentMachine` names each of them as a guard or an assign.
 */

const NO_DECISIONS: Readonly<Record<string, Decision>> = Object.freeze({});

/** Whether the next prompt, plus the reply reserve, would push the tokens spent past the budget. */
export function isOverBudget(context: AgentContext): boolean {
  return context.tokens + promptTokens(context) + context.replyReserve > context.tokenBudget;
}

/** Appends the model's reply; counts the provider's usage when it gives one, else the estimate. */
export function appendReply(context: AgentContext, reply: ModelReply): Partial<AgentContext> {
  const { content, toolCalls, usage, reasoning, finishReason } = reply;
  // A JSON copy: the trace owns its calls (they are frozen with it), whoever made the reply.
  const transcript = appendCopy(context.transcript, {
    role: "assistant",
    content,
    toolCalls,
    ...(reasoning === undefined ? {} : { reasoning }),
    ...(finishReason === undefined ? {} : { finishReason }),
  });
  const assistant = lastMessage(transcript) as Extract<Message, { role: "assistant" }>;
  const estimate = promptTokens(context) + tokensOfLength(transcript.chars - context.transcript.chars);
  const spent = usage === undefined || !context.countUsage ? estimate : usage.inputTokens + usage.outputTokens;
  return {
    transcript,
    steps: context.steps + 1,
    tokens: context.tokens + spent,
    pendingCalls: assistant.toolCalls,
    decisions: NO_DECISIONS,
    answer: toolCalls.length === 0 ? content : null,
  };
}

/** Appends the tool message of the first pending call, and notes the call for repeat detection. */
export function answerCall(context: AgentContext, content: string): Partial<AgentContext> {
  const [call] = context.pendingCalls;
  if (call === undefined) return {};
  const rest = context.pendingCalls.slice(1);
  const message: Message = { role: "tool", toolCallId: call.id, name: call.name, content };
  const key = callKey(call);
  return {
    transcript: appendMessage(context.transcript, message),
    pendingCalls: rest,
    decisions: Object.hasOwn(context.decisions, call.id) ? without(context.decisions, call.id) : context.decisions,
    lastCall: { key, count: context.lastCall?.key === key ? context.lastCall.count + 1 : 1 },
  };
}

/** Whether the first pending call would be the `repeatLimit`-th identical call in a row. */
export function isRepeatedCall(context: AgentContext): boolean {
  const [call] = context.pendingCalls;
  if (call === undefined || context.lastCall === null) return false;
  return context.lastCall.key === callKey(call) && context.lastCall.count + 1 >= context.repeatLimit;
}

/** The observation of a call that is not run because it repeats. */
export function repeatedCallObservation(context: AgentContext): string {
  const name = context.pendingCalls[0]?.name ?? "the tool";
  return (
    `ERROR: ${name} was asked for with the same arguments ${context.repeatLimit} times in a row, so it was not run again: ` +
    "the result would not change. Use the result you already have, call it with different arguments, or answer."
  );
}

/** Whether the first pending call needs a decision that has not come yet. */
export function awaitsDecision(context: AgentContext): boolean {
  const [call] = context.pendingCalls;
  return (
    call !== undefined && context.approvalRequired.includes(call.name) && decisionFor(context, call.id) === undefined
  );
}

/** Whether the first pending call was denied. */
export function isDenied(context: AgentContext): boolean {
  const [call] = context.pendingCalls;
  return call !== undefined && decisionFor(context, call.id)?.approved === false;
}

/** The observation of a denied call. */
export function deniedObservation(context: AgentContext): string {
  const [call] = context.pendingCalls;
  const reason = call === undefined ? undefined : decisionFor(context, call.id)?.reason;
  return (
    `ERROR: the user denied this call to ${call?.name ?? "the tool"}${reason ? ` (${reason})` : ""}, so it was not run. ` +
    "Do not ask for it again; answer without it or ask the user what to do."
  );
}

/** Records a decision for a pending call; decisions for other calls are ignored. */
export function recordDecision(
  context: AgentContext,
  decision: Extract<EffectEvent, { type: "approval.decided" }>,
): Partial<AgentContext> {
  if (!context.pendingCalls.some((call) => call.id === decision.callId)) return {};
  const { approved, reason } = decision;
  return {
    decisions: { ...context.decisions, [decision.callId]: reason === undefined ? { approved } : { approved, reason } },
  };
}

/** Gives every call still pending a tool message saying why it was not run, so the trace stays valid. */
export function closePendingCalls(context: AgentContext, why: string): Partial<AgentContext> {
  let transcript = context.transcript;
  for (const call of context.pendingCalls) {
    transcript = appendMessage(transcript, {
      role: "tool",
      toolCallId: call.id,
      name: call.name,
      content: `ERROR: ${call.name} was not run to completion: ${why}.`,
    });
  }
  return { transcript, pendingCalls: [] };
}

/** The calls of the last reply that wait for a decision, for an `awaiting_approval` result. */
export function pendingApprovals(context: AgentContext): ToolCall[] {
  return context.pendingCalls.filter(
    (call) => context.approvalRequired.includes(call.name) && decisionFor(context, call.id) === undefined,
  );
}

/** The decision for a call id: own keys only, so an id like `constructor` has none until one is given. */
function decisionFor(context: AgentContext, callId: string): Decision | undefined {
  return Object.hasOwn(context.decisions, callId) ? context.decisions[callId] : undefined;
}

function without<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> {
  const { [key]: _removed, ...rest } = record;
  return rest;
}
