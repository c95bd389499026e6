import type { AgentEvent, AgentRequest, PendingQuestion, QuestionAnswered, ToolCall } from "../data/index.js";
import type { AgentContext } from "./agent-context.js";
import type { CallBatch } from "./call-batch.js";
import { isChildDecisionAwaited } from "./child-pauses.js";
import { isToolAnswer, toolQuestionOf } from "./tool-asks.js";

/**
 * Questions for a person as decisions: a call of an ask-user tool whose `question` is a string
 * waits, as a call waiting for a decision does, for `question.answered`; the answer, as JSON, is
 * the call's observation. A call with no string `question` runs as any call does (the registry
 * tells the model what is wrong with its arguments).
 */

/** Whether `call` asks a person a question (and so waits for an answer instead of running). */
export function isQuestion({ askTools }: Pick<AgentContext, "askTools">, call: ToolCall): boolean {
  if (askTools.length === 0 || call.rawArgs !== undefined || typeof call.args.question !== "string") return false;
  return askTools.some((tool) => tool.name === call.name);
}

/** The request that asks a person the question `call` holds. */
export function questionRequest(context: Pick<AgentContext, "askTools">, call: ToolCall): AgentRequest {
  const schema = context.askTools.find((tool) => tool.name === call.name)?.answer;
  const request = { type: "askUser", call, question: call.args.question as string } as const;
  return schema === undefined ? request : { ...request, schema };
}

/** Whether `question.answered` is for a question that waits for its answer. */
export function isAwaitedAnswer(context: AgentContext, event: QuestionAnswered): boolean {
  const { batch } = context;
  if (batch === null) return false;
  const index = batch.find(event.callId, "deciding");
  return (index >= 0 && isQuestion(context, batch.calls[index] as ToolCall)) || isToolAnswer(context, event);
}

/** The answered call's observation: the answer as JSON. */
export function answerChange(
  batch: CallBatch,
  event: Extract<AgentEvent, { type: "question.answered" }>,
): { index: number; content: string } {
  return { index: batch.find(event.callId, "deciding"), content: JSON.stringify(event.answer) ?? "null" };
}

/** The questions of the last reply that wait for answers (an ask-user call's, or one a running tool asked), in call order, for a paused result. */
export function pendingQuestions(context: AgentContext): PendingQuestion[] {
  const { batch } = context;
  if (batch === null) return [];
  const waiting: PendingQuestion[] = [];
  const asking = context.toolAsks.length === 0 ? [] : batch.indexesIn("running");
  const indexes = [...batch.indexesIn("deciding"), ...asking].sort((a, b) => a - b);
  for (const index of indexes) {
    const call = batch.calls[index] as ToolCall;
    const asked = asking.length === 0 ? undefined : toolQuestionOf(context, call);
    if (asked !== undefined) waiting.push(asked);
    if (!isQuestion(context, call)) continue;
    const { question, schema } = questionRequest(context, call) as Extract<AgentRequest, { type: "askUser" }>;
    waiting.push(schema === undefined ? { id: call.id, question } : { id: call.id, question, schema });
  }
  return waiting;
}

/** Whether some call of the last reply, or of a paused child's tree, waits for a decision (not counting questions). */
export function isAnyDecisionAwaited(context: AgentContext): boolean {
  const { batch } = context;
  if (batch === null) return false;
  if (isChildDecisionAwaited(context)) return true;
  return batch.indexesIn("deciding").some((index) => !isQuestion(context, batch.calls[index] as ToolCall));
}
