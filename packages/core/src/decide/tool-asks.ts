import type { AgentRequest, PendingQuestion, QuestionAnswered, ToolAsked, ToolCall } from "../data/index.js";
import type { AgentContext, AskedCall } from "./agent-context.js";

/**
 * Questions a running tool asks (its context's `ask`) as decisions: the call ends without an
 * observation (`tool.asked`) and waits, as an ask-user tool's call does, for `question.answered`
 * under its own call id; the answer is then kept with the call and the call is made again
 * (`runTool` with the answers so far), so that its `ask` gives them in order. A call may ask
 * again on the next attempt: each question waits in turn.
 */

/** Whether call `callId` asked a question that waits for its answer. */
export function isAskingCall({ toolAsks }: Pick<AgentContext, "toolAsks">, callId: string): boolean {
  return toolAsks.some((ask) => ask.callId === callId && ask.waiting !== null);
}

/** How many running calls wait for an answer to a question they asked (they run again only once it comes). */
export function askingCalls({ toolAsks }: Pick<AgentContext, "toolAsks">): number {
  let count = 0;
  for (const ask of toolAsks) if (ask.waiting !== null) count += 1;
  return count;
}

/** Whether `tool.asked` is for a call that runs now (and so has not asked already). */
export function isAskFromRunningCall(context: AgentContext, event: ToolAsked): boolean {
  const { batch } = context;
  if (batch === null || batch.find(event.callId, "running") < 0 || isAskingCall(context, event.callId)) return false;
  // A call paused in its child runs nothing until it is resumed.
  return !context.childPauses.some((paused) => paused.callId === event.callId);
}

/** Whether `question.answered` answers a question a running call asked. */
export function isToolAnswer(context: AgentContext, event: QuestionAnswered): boolean {
  const { batch } = context;
  return batch !== null && batch.find(event.callId, "running") >= 0 && isAskingCall(context, event.callId);
}

/** Records the question a call asked, and asks it of a person (`askUser`). */
export function recordAsk(
  context: AgentContext,
  event: ToolAsked,
): { changes: Partial<AgentContext>; requests: AgentRequest[] } {
  const waiting =
    event.schema === undefined ? { question: event.question } : { question: event.question, schema: event.schema };
  const before = context.toolAsks.find((ask) => ask.callId === event.callId);
  const asked: AskedCall = { callId: event.callId, answers: before?.answers ?? [], waiting };
  const toolAsks = [...context.toolAsks.filter((ask) => ask !== before), asked];
  const call = callOf(context, event.callId);
  return { changes: { toolAsks }, requests: [askRequest(call, asked)] };
}

/** Keeps the answer with its call and makes the call again (`runTool` with every answer so far). */
export function recordToolAnswer(
  context: AgentContext,
  event: QuestionAnswered,
): { changes: Partial<AgentContext>; requests: AgentRequest[] } {
  const toolAsks = context.toolAsks.map((ask) =>
    ask.callId === event.callId && ask.waiting !== null
      ? { callId: ask.callId, answers: [...ask.answers, event.answer], waiting: null }
      : ask,
  );
  const changed = { ...context, toolAsks };
  return { changes: { toolAsks }, requests: [runToolRequest(changed, callOf(context, event.callId))] };
}

/** Forgets what call `callId` asked, once it has its observation. */
export function forgetAsks(context: AgentContext, callId: string): Partial<AgentContext> {
  if (!context.toolAsks.some((ask) => ask.callId === callId)) return {};
  return { toolAsks: context.toolAsks.filter((ask) => ask.callId !== callId) };
}

/** The request that runs `call`: with the answers to the questions it asked before, when it did. */
export function runToolRequest({ toolAsks }: Pick<AgentContext, "toolAsks">, call: ToolCall): AgentRequest {
  const asked = toolAsks.find((ask) => ask.callId === call.id);
  return asked === undefined || asked.answers.length === 0
    ? { type: "runTool", call }
    : { type: "runTool", call, answers: asked.answers };
}

/** The request that asks a person the question running call `call` waits on. */
export function toolAskRequest({ toolAsks }: Pick<AgentContext, "toolAsks">, call: ToolCall): AgentRequest {
  return askRequest(call, toolAsks.find((ask) => ask.callId === call.id) as AskedCall);
}

/** The question running call `call` waits on, as a paused result shows it, or undefined when it waits on none. */
export function toolQuestionOf(
  { toolAsks }: Pick<AgentContext, "toolAsks">,
  call: ToolCall,
): PendingQuestion | undefined {
  const waiting = toolAsks.find((ask) => ask.callId === call.id)?.waiting;
  if (waiting === null || waiting === undefined) return undefined;
  return waiting.schema === undefined
    ? { id: call.id, question: waiting.question }
    : { id: call.id, question: waiting.question, schema: waiting.schema };
}

function askRequest(call: ToolCall, ask: AskedCall): AgentRequest {
  const { question, schema } = ask.waiting as NonNullable<AskedCall["waiting"]>;
  const request = { type: "askUser", call, question, asked: ask.answers.length + 1 } as const;
  return schema === undefined ? request : { ...request, schema };
}

function callOf(context: AgentContext, callId: string): ToolCall {
  const batch = context.batch as NonNullable<AgentContext["batch"]>;
  return batch.calls[batch.find(callId, "running")] as ToolCall;
}
