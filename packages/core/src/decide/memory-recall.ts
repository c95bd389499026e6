import type { AgentRequest, MemoryRecalled, Message } from "../data/index.js";
import { appendMessage, contentText, lastMessage, memoryMessage, sameScope } from "../data/index.js";
import type { AgentContext } from "./agent-context.js";

/**
 * The decisions of recall before a turn, as plain functions of context and the logged answer. A
 * run with memory recalls once per turn, after its input guardrails passed and before its first
 * budget check; the hits become one user message of the turn, so the budget counts them before
 * the call like anything else the model is shown. No hits, no message.
 */

/** Whether this turn still has to recall before its first model call. */
export function needsRecall({ memory, recalled }: AgentContext): boolean {
  return memory !== null && memory.recall > 0 && !recalled;
}

/** The recall the turn asks for: the turn's message (the last of the list while it recalls) as the query. */
export function recallRequest({ memory, transcript }: AgentContext): Extract<AgentRequest, { type: "recallMemory" }> {
  const settings = memory as NonNullable<AgentContext["memory"]>;
  return {
    type: "recallMemory",
    scope: settings.scope,
    query: contentText((lastMessage(transcript) as Message).content),
    limit: settings.recall,
    message: transcript.length - 1,
  };
}

/** Whether `event` answers the recall the turn asked for: the same scope and query, and no more hits than asked. */
export function isAwaitedRecall(context: AgentContext, event: MemoryRecalled): boolean {
  const request = recallRequest(context);
  return sameScope(request.scope, event.scope) && request.query === event.query && event.hits.length <= request.limit;
}

/** Records the recall: the hits, when there are any, as quoted data in a user message of the turn. */
export function recordRecall(context: AgentContext, event: MemoryRecalled): Partial<AgentContext> {
  if (event.hits.length === 0) return { recalled: true };
  const message: Message = { role: "user", content: memoryMessage(event.hits) };
  return { recalled: true, transcript: appendMessage(context.transcript, message) };
}
