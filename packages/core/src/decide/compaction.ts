import type { AgentRequest, CompactedView, ContextCompacted, Message, Usage } from "../data/index.js";
import {
  agentMessages,
  contentText,
  countTokens,
  messageChars,
  messagesOf,
  summaryMessage,
  viewMessages,
} from "../data/index.js";
import { type AgentContext, promptTokens } from "./agent-context.js";
import { type CompactionState, isCompacted } from "./compaction-state.js";
import { charge, wouldOverspend } from "./cost.js";
import { NO_COUNTS } from "./prompt-count.js";

/**
 * Context compaction's decisions, pure functions of context and event: whether the next prompt
 * calls for a compacted view, where the hidden messages end, what the summarizer is asked, and
 * the view a logged `context.compacted` leaves.
 */

/** What the summarizer is told to do. */
export const SUMMARIZER_INSTRUCTIONS =
  "You write the summary that replaces the earlier messages of an agent's conversation. Keep every fact, " +
  "tool result, decision and open question the agent needs to finish its task; leave out repetition. " +
  "Answer with the summary only.";

/**
 * The first message to keep showing if the list were compacted now, or null when no message
 * past the ones already hidden would be: the last `keepRecent` messages stay, moved back to the
 * assistant message whose calls the first of them answers, so a call and its tool messages are
 * shown together or not at all.
 */
export function compactionBoundary(context: AgentContext): number | null {
  const { compaction, transcript } = context;
  if (compaction === null) return null;
  const { items, length } = transcript;
  let boundary = Math.max(compaction.keptFrom, length - compaction.keepRecent);
  while (boundary > compaction.keptFrom && boundary < length && items[boundary]?.role === "tool") boundary--;
  return boundary > compaction.keptFrom ? boundary : null;
}

/** Whether the next prompt, as the model would be shown it, passes `triggerTokens`, and compacting would hide more. */
export function needsCompaction(context: AgentContext): boolean {
  const { compaction } = context;
  if (compaction === null || promptTokens(context) <= compaction.triggerTokens) return false;
  return compactionBoundary(context) !== null;
}

/** What the summarizer is asked: the task, the summary so far, and the messages now hidden, as text (no tool parts). */
export function summaryPrompt(context: AgentContext, keptFrom: number): Message[] {
  const compaction = context.compaction as CompactionState;
  const { items } = context.transcript;
  const task = items[compaction.head] as Message;
  const lines = [`The task: ${task.content}`, ""];
  if (compaction.summary !== null) lines.push("The summary so far:", compaction.summary, "");
  lines.push("The messages to summarize:");
  for (let index = compaction.keptFrom; index < keptFrom; index++) lines.push(...messageLines(items[index] as Message));
  return [
    { role: "system", content: SUMMARIZER_INSTRUCTIONS },
    { role: "user", content: lines.join("\n") },
  ];
}

function messageLines(message: Message): string[] {
  if (message.role === "tool")
    return [`[tool ${message.name} answered call ${message.toolCallId}] ${contentText(message.content)}`];
  if (message.role !== "assistant") return [`[${message.role}] ${contentText(message.content)}`];
  const calls = message.toolCalls.map(
    (call) => `[assistant called ${call.name} as ${call.id}] ${JSON.stringify(call.args)}`,
  );
  return message.content === "" ? calls : [`[assistant] ${message.content}`, ...calls];
}

/** Whether the summarizer's call, with the reserve for its reply, would push this turn's tokens past the budget (never for `trim`). */
export function isSummaryOverBudget(context: AgentContext): boolean {
  const { compaction } = context;
  const keptFrom = compactionBoundary(context);
  if (compaction?.strategy !== "summarize" || keptFrom === null) return false;
  const spent = context.tokens - context.turnStart.tokens;
  return spent + countTokens(summaryPrompt(context, keptFrom)) + context.summaryReserve > context.tokenBudget;
}

/** Whether the summarizer's call, priced at its input rate with its longest reply at its output rate, would push this turn's cost past `costBudget`. */
export function isSummaryOverCostBudget(context: AgentContext): boolean {
  const { compaction } = context;
  if (context.costBudget === Number.POSITIVE_INFINITY || compaction?.strategy !== "summarize") return false;
  const keptFrom = compactionBoundary(context);
  if (keptFrom === null) return false;
  const price = context.prices?.summarizer?.price ?? null;
  const prompt = countTokens(summaryPrompt(context, keptFrom));
  const spent = context.cost - context.turnStart.cost;
  return wouldOverspend(price, spent, prompt, context.summaryReserve, context.costBudget);
}

/** The request for a compacted view before the next model call. */
export function compactionRequest(context: AgentContext): AgentRequest {
  const { strategy } = context.compaction as CompactionState;
  const keptFrom = compactionBoundary(context) as number;
  const prompt = strategy === "summarize" ? summaryPrompt(context, keptFrom) : [];
  return { type: "compactContext", step: context.steps + 1, strategy, keptFrom, prompt };
}

/** Whether `context.compacted` is the compaction the machine asked for: its boundary, and a summary exactly when it summarizes. */
export function isPlannedCompaction(context: AgentContext, event: ContextCompacted): boolean {
  const { compaction } = context;
  if (compaction === null || event.keptFrom !== compactionBoundary(context)) return false;
  return event.step === context.steps + 1 && (compaction.strategy === "summarize") === (event.summary !== undefined);
}

/**
 * Hides the messages up to the event's boundary from what the model is shown, with the summary
 * in their place, and counts the summarizer's tokens: the provider's when it gave them (and the
 * run counts usage), else the estimate of its prompt and its reply.
 */
export function recordCompaction(context: AgentContext, event: ContextCompacted): Partial<AgentContext> {
  const compaction = context.compaction as CompactionState;
  const { items } = context.transcript;
  let hiddenChars = compaction.hiddenChars;
  for (let index = compaction.keptFrom; index < event.keptFrom; index++) {
    hiddenChars += messageChars(items[index] as Message);
  }
  const summary = event.summary ?? null;
  const summaryChars = summary === null ? 0 : JSON.stringify(summaryMessage(summary)).length;
  const next = { ...compaction, keptFrom: event.keptFrom, summary, hiddenChars, summaryChars };
  // The providers' counts were of prompts that showed what is hidden now: the next checks count the estimate again.
  const counts = context.promptCounts === null || context.promptCounts.length === 0 ? {} : { promptCounts: NO_COUNTS };
  if (summary === null) return { compaction: next, ...counts };
  const { usage } = event;
  const counted: Usage =
    usage !== undefined && context.countUsage
      ? usage
      : { inputTokens: countTokens(summaryPrompt(context, event.keptFrom)), outputTokens: countTokens(summary) };
  const tokens = context.tokens + counted.inputTokens + counted.outputTokens;
  if (context.prices === null) return { compaction: next, tokens, ...counts };
  return { compaction: next, tokens, ...counts, ...charge(context, context.prices.summarizer, counted) };
}

/** What the model is shown besides the whole list, for a `callModel` request; undefined when it is shown the whole list. */
export function shownView(context: AgentContext): CompactedView | undefined {
  const { compaction } = context;
  if (compaction === null || !isCompacted(compaction)) return undefined;
  return { head: compaction.head, keptFrom: compaction.keptFrom, summary: compaction.summary };
}

/** The messages the model is (or was) shown for the next model call from this context: the view a compaction left, else the whole list. */
export function shownMessages(context: AgentContext): readonly Message[] {
  const shown = context.handoffs?.shown;
  if (shown != null) return agentMessages(context.transcript, shown);
  const view = shownView(context);
  return view === undefined ? messagesOf(context.transcript) : viewMessages(context.transcript, view);
}
