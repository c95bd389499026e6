import type { AgentEvent, AgentRequest, Message, MessageContent, ModelReply, ToolCall } from "../data/index.js";
import {
  appendCopy,
  appendMessage,
  isErrorResult,
  type LogFlags,
  lastMessage,
  type Transcript,
  tokensOfLength,
} from "../data/index.js";
import { type AgentContext, calledModel, checkedPromptTokens, currentPrepared, promptTokens } from "./agent-context.js";
import { CallBatch, type CallChange } from "./call-batch.js";
import { callKey } from "./call-key.js";
import { isPausedCall } from "./child-pauses.js";
import { charge, chargeChild, mostCallCost, pricedModel, wouldOverspend } from "./cost.js";
import type { HandoffState } from "./handoff-state.js";
import { planHandoff } from "./handoffs.js";
import { currentAttempt } from "./model-retry.js";
import { withCount } from "./prompt-count.js";
import { answerChange, isQuestion, questionRequest } from "./questions.js";
import { allowedTools } from "./step-preparation.js";
import { askingCalls, forgetAsks, isToolAnswer, recordToolAnswer } from "./tool-asks.js";

/**
 * The machine's decisions as plain functions of context (and event data): no clock, no
 * randomness, no I/O. `agentMachine` names each of them as a guard or an assign.
 */

type Decided = Extract<AgentEvent, { type: "approval.decided" }>;
type Finished = Extract<AgentEvent, { type: "tool.finished" }>;
type Answered = Extract<AgentEvent, { type: "question.answered" }>;

/** Whether this turn has made `maxSteps` model calls. */
export function isStepLimitReached(context: AgentContext): boolean {
  return context.steps - context.turnStart.steps >= context.maxSteps;
}

/** Whether the next prompt, plus the reserve for the reply of the model about to be called, would push this turn's tokens past the budget. */
export function isOverBudget(context: AgentContext): boolean {
  const spent = context.tokens - context.turnStart.tokens;
  return spent + checkedPromptTokens(context) + reserveOf(context) > context.tokenBudget;
}

/** Whether the next prompt at the called model's input rate, plus its longest reply at its output rate, would push this turn's cost past `costBudget`. */
export function isOverCostBudget(context: AgentContext): boolean {
  if (context.costBudget === Number.POSITIVE_INFINITY) return false;
  const priced = pricedModel(context.prices, currentAttempt(context).model);
  const spent = context.cost - context.turnStart.cost;
  const prompt = checkedPromptTokens(context);
  return wouldOverspend(priced?.price ?? null, spent, prompt, reserveOf(context), context.costBudget);
}

/**
 * The model a run's cost budget prices its calls at, when the model `prepareStep` picked for a step
 * (`picked`, by name) is another: the cost check prices a call at the run's model, so under a
 * costBudget another model would be priced wrongly, and it is refused before the call rather than
 * guessed at. Null when the pick stands: no model picked, no cost budget, or the priced one.
 */
export function unpricedPick(
  context: Pick<AgentContext, "costBudget" | "prices">,
  picked: string | undefined,
): string | null {
  if (picked === undefined || context.costBudget === Number.POSITIVE_INFINITY) return null;
  const priced = context.prices?.models[0]?.name ?? "(unnamed)";
  return picked === priced ? null : priced;
}

/**
 * USD the next model call may cost at most, as the cost check counts it: its prompt at the called
 * model's dearest input rate, its longest reply at the output rate; null when that model has no
 * price (or the run none). What a spending ceiling holds back for the call before it is made.
 */
export function nextCallCost(context: AgentContext): number | null {
  const priced = pricedModel(context.prices, currentAttempt(context).model);
  const price = priced?.price ?? null;
  if (price === null) return null;
  return mostCallCost(price, checkedPromptTokens(context), reserveOf(context));
}

/** The reply reserve of the model the next call goes to: the run's (or the one `prepareStep` picked), or the fallback's the step has come to. */
function reserveOf(context: AgentContext): number {
  const { model } = currentAttempt(context);
  if (model !== 0) return context.fallbackReserves[model - 1] ?? context.replyReserve;
  return currentPrepared(context)?.event.reserve ?? context.replyReserve;
}

/**
 * Appends the model's reply; counts the provider's usage when it gives one, else the estimate;
 * and plans its calls: which are refused as repeats without running, and where a repeat stops the run.
 */
export function appendReply(context: AgentContext, reply: ModelReply): Partial<AgentContext> {
  const { content, toolCalls, usage, reasoning, finishReason, providerMetadata } = reply;
  // A copy: the trace owns its calls (they are frozen with it), whoever made the reply. Its fields
  // are set in the order the log writes them, each only when given: no spread per step.
  const message: Mutable<Extract<Message, { role: "assistant" }>> = { role: "assistant", content, toolCalls };
  if (reasoning !== undefined) message.reasoning = reasoning;
  if (finishReason !== undefined) message.finishReason = finishReason;
  if (providerMetadata !== undefined) message.providerMetadata = providerMetadata;
  const transcript = appendCopy(context.transcript, message);
  const assistant = lastMessage(transcript) as Extract<Message, { role: "assistant" }>;
  const prompt = promptTokens(context);
  const replyTokens = tokensOfLength(transcript.chars - context.transcript.chars);
  const counted = usage !== undefined && context.countUsage;
  const spent = counted ? usage.inputTokens + usage.outputTokens : prompt + replyTokens;
  const next: Mutable<Partial<AgentContext>> = {
    transcript,
    steps: context.steps + 1,
    tokens: context.tokens + spent,
    answer: toolCalls.length === 0 && finishReason !== "refusal" ? content : null,
  };
  if (context.prices !== null) {
    const usedTokens = counted ? usage : { inputTokens: prompt, outputTokens: replyTokens };
    Object.assign(next, charge(context, pricedModel(context.prices, currentAttempt(context).model), usedTokens));
  }
  // What the provider counted of this prompt past its estimate is what the next check adds to the next one's.
  if (counted && context.promptCounts !== null) {
    const promptCounts = withCount(context.promptCounts, calledModel(context), usage.inputTokens, prompt);
    if (promptCounts !== context.promptCounts) next.promptCounts = promptCounts;
  }
  if (assistant.toolCalls.length === 0) {
    next.batch = null;
    return next;
  }
  const { batch, lastCall, handoff } = planCalls(context, assistant.toolCalls);
  const answered = appendAnswered(context.flags, transcript, batch);
  next.transcript = answered.transcript;
  next.batch = answered.batch;
  next.lastCall = lastCall;
  if (handoff !== null) next.handoffs = { ...(context.handoffs as HandoffState), pending: handoff };
  return next;
}

/**
 * The calls' batch, with the repeats refused (or the first one that stops the run marked), and the
 * row after them; in a run with handoffs, the first handoff call answered at once and any later one
 * refused (see `planHandoff`), and the handoff to make once every call is answered.
 */
function planCalls(
  context: AgentContext,
  calls: readonly ToolCall[],
): { batch: CallBatch; lastCall: AgentContext["lastCall"]; handoff: HandoffState["pending"] } {
  const allowed = allowedTools(context);
  const handoffs = context.handoffs === null ? null : planHandoff(context.handoffs, calls, allowed);
  const results = handoffs?.results;
  const handoff = handoffs?.pending ?? null;
  // With the guard off (the default) no call is a repeat, and the row is not kept.
  if (context.repeatLimit === Number.POSITIVE_INFINITY) {
    const refusals = allowed === null ? NO_REFUSALS : notOffered(calls, allowed);
    const all =
      handoffs === null || handoffs.refusals.size === 0 ? refusals : new Map([...refusals, ...handoffs.refusals]);
    return { batch: CallBatch.of(calls, all, calls.length, results), lastCall: null, handoff };
  }
  const refusals = allowed === null ? new Map<number, string>() : notOffered(calls, allowed);
  for (const [index, refusal] of handoffs?.refusals ?? []) refusals.set(index, refusal);
  let stopAt = calls.length;
  let last = context.lastCall;
  for (const [index, call] of calls.entries()) {
    if (refusals.has(index) || results?.has(index) === true) continue;
    const key = callKey(call);
    const count = last?.key === key ? last.count + 1 : 1;
    last = { key, count };
    if (count < context.repeatLimit || context.repeatableTools.includes(call.name)) continue;
    if (context.onRepeatedCall === "stop") {
      stopAt = index;
      break;
    }
    refusals.set(index, repeatedCallObservation(context, call));
  }
  return { batch: CallBatch.of(calls, refusals, stopAt, results), lastCall: last, handoff };
}

const NO_REFUSALS: ReadonlyMap<number, string> = new Map();

/** The calls of tools `prepareStep` did not offer in this step, each with the unknown-tool observation naming the tools offered. */
function notOffered(calls: readonly ToolCall[], allowed: ReadonlySet<string>): Map<number, string> {
  const refusals = new Map<number, string>();
  for (const [index, call] of calls.entries()) {
    if (allowed.has(call.name)) continue;
    const name = JSON.stringify(call.name).slice(1, -1);
    refusals.set(index, `ERROR: unknown tool '${name}'. Available tools: [${[...allowed].join(", ")}]`);
  }
  return refusals;
}

/** The observation of a call that is not run because it repeats. */
function repeatedCallObservation(context: AgentContext, call: ToolCall): string {
  const head = `ERROR: ${call.name} was asked for with the same arguments ${context.repeatLimit} times in a row, so it was not run again`;
  if (!context.flags.repeatWordsByIdempotence || context.idempotentTools.includes(call.name)) {
    return `${head}: the result would not change. Use the result you already have, call it with different arguments, or answer.`;
  }
  return `${head}. Use the results you already have, call it with different arguments, or answer; if it really must run again, say so in your answer.`;
}

/** Whether the reply is a refusal: the run ends with status `refused`. */
export function isRefusal(reply: ModelReply): boolean {
  return reply.finishReason === "refusal";
}

/** Whether every call of the last reply has its tool message. */
export function allCallsAnswered({ batch }: AgentContext): boolean {
  return batch === null || batch.appended === batch.calls.length;
}

/** Whether every call before a repeated call that stops the run is answered: the run stops now. */
export function isStoppedByRepeat({ batch }: AgentContext): boolean {
  return batch !== null && batch.stopAt < batch.calls.length && batch.appended === batch.stopAt;
}

/** Whether some call of the last reply is running (a call that asked a question, or one paused in its child, waits instead). */
export function isAnyCallRunning(context: AgentContext): boolean {
  const { batch } = context;
  return batch !== null && batch.running > askingCalls(context) + context.childPauses.length;
}

/**
 * Takes up calls in call order while fewer than `toolConcurrency` are in progress: a call to a
 * tool that needs approval waits for a decision (`requestDecision`), any other runs (`runTool`).
 * Nothing is left to take up once every call before a stop is entered or answered.
 */
export function enterCalls(context: AgentContext): { changes: Partial<AgentContext>; requests: AgentRequest[] } {
  const { batch } = context;
  if (batch === null || batch.nextToEnter() >= batch.stopAt) return { changes: {}, requests: [] };
  const changes: CallChange[] = [];
  const requests: AgentRequest[] = [];
  let next = batch.nextToEnter();
  let inProgress = batch.inProgress;
  while (next < batch.stopAt && inProgress < context.toolConcurrency) {
    const call = batch.calls[next] as ToolCall;
    const asking = isQuestion(context, call);
    const deciding = asking || context.approvalRequired.includes(call.name);
    changes.push({ kind: "enter", index: next, deciding });
    requests.push(asking ? questionRequest(context, call) : { type: deciding ? "requestDecision" : "runTool", call });
    inProgress += 1;
    next = batch.skipFrom(next + 1);
  }
  return { changes: { batch: batch.apply(changes) }, requests };
}

/** Whether `tool.finished` is for a call that is running (not one paused in its child). */
export function isRunningCall(context: AgentContext, event: Finished): boolean {
  const { batch } = context;
  if (batch === null || batch.find(event.callId, "running") < 0) return false;
  return context.childPauses.length === 0 || !isPausedCall(context, event.callId);
}

/**
 * Whether `tool.finished` answers the last call of the reply left: it runs, no other call is in
 * progress or left to take up, and no repeat stops the run. Then every call has its answer.
 */
export function isLastResult(context: AgentContext, event: Finished): boolean {
  const { batch } = context;
  if (batch === null || batch.inProgress !== 1 || batch.stopAt !== batch.calls.length) return false;
  return batch.nextToEnter() === batch.calls.length && isRunningCall(context, event);
}

/** Whether `approval.decided` is for a call that waits for a decision (a question waits for an answer, not a decision). */
export function isAwaitedDecision(context: AgentContext, event: Decided): boolean {
  const { batch } = context;
  if (batch === null) return false;
  const index = batch.find(event.callId, "deciding");
  return index >= 0 && !isQuestion(context, batch.calls[index] as ToolCall);
}

/**
 * Records a person's answer to a waiting question: an ask-user call's observation (and the tool
 * messages now due), or the answer a running tool asked for, which makes the call again.
 */
export function recordAnswer(
  context: AgentContext,
  event: Answered,
): { changes: Partial<AgentContext>; requests: AgentRequest[] } {
  if (isToolAnswer(context, event)) return recordToolAnswer(context, event);
  const batch = context.batch as CallBatch;
  const { index, content } = answerChange(batch, event);
  const answered = batch.apply([{ kind: "answer", index, content }]);
  return { changes: appendAnswered(context.flags, context.transcript, answered), requests: [] };
}

/** Records a running call's observation, and appends every tool message now due, in call order. */
export function recordResult(context: AgentContext, event: Finished): Partial<AgentContext> {
  const batch = context.batch as CallBatch;
  const index = batch.find(event.callId, "running");
  const isError = isErrorResult(event, context.flags);
  const answered = batch.apply([{ kind: "answer", index, content: event.content, isError }]);
  const changes: Partial<AgentContext> = appendAnswered(context.flags, context.transcript, answered);
  // A call's questions are forgotten once it finished; a run whose tools never asked has none.
  if (context.toolAsks.length > 0) Object.assign(changes, forgetAsks(context, event.callId));
  // A child run's tokens (and cost) are the parent's: every budget check after this one counts them.
  const spent = event.tokens === undefined ? changes : { ...changes, tokens: context.tokens + event.tokens };
  if (event.cost === undefined && event.unpriced === undefined) return spent;
  return { ...spent, ...chargeChild(context, event.cost, event.unpriced) };
}

/** Records a decision on a waiting call: approved, it runs (the request is returned); denied, it is answered with why. */
export function recordDecision(
  context: AgentContext,
  event: Decided,
): { changes: Partial<AgentContext>; requests: AgentRequest[] } {
  const batch = context.batch as CallBatch;
  const index = batch.find(event.callId, "deciding");
  const call = batch.calls[index] as ToolCall;
  if (event.approved) {
    return { changes: { batch: batch.apply([{ kind: "approve", index }]) }, requests: [{ type: "runTool", call }] };
  }
  const content = deniedObservation(call, event.reason);
  const answered = batch.apply([{ kind: "answer", index, content, isError: true }]);
  return { changes: appendAnswered(context.flags, context.transcript, answered), requests: [] };
}

/** The observation of a denied call. */
function deniedObservation(call: ToolCall, reason: string | undefined): string {
  return (
    `ERROR: the user denied this call to ${call.name}${reason ? ` (${reason})` : ""}, so it was not run. ` +
    "Do not ask for it again; answer without it or ask the user what to do."
  );
}

/**
 * Gives every call not yet in the list its tool message, so the trace stays valid: the
 * observation of a call that finished, else an `ERROR:` saying why it was not run to completion.
 */
export function closeCalls(context: AgentContext, why: string): Partial<AgentContext> {
  const { batch } = context;
  if (batch === null) return {};
  let transcript = context.transcript;
  for (let index = batch.appended; index < batch.calls.length; index++) {
    const call = batch.calls[index] as ToolCall;
    const content = batch.contentOf(index);
    const message =
      content === undefined
        ? toolMessage(context.flags, call, `ERROR: ${call.name} was not run to completion: ${why}.`, true)
        : toolMessage(context.flags, call, content, batch.isErrorAt(index));
    transcript = appendMessage(transcript, message);
  }
  return { transcript, batch: batch.apply([], batch.calls.length) };
}

/** Appends the tool messages of the answered calls that follow the ones already in the list. */
function appendAnswered(
  flags: LogFlags,
  list: Transcript,
  batch: CallBatch,
): { transcript: Transcript; batch: CallBatch } {
  let transcript = list;
  let appended = batch.appended;
  for (; appended < batch.calls.length; appended++) {
    const content = batch.contentOf(appended);
    if (content === undefined) break;
    const call = batch.calls[appended] as ToolCall;
    transcript = appendMessage(transcript, toolMessage(flags, call, content, batch.isErrorAt(appended)));
  }
  return { transcript, batch: appended === batch.appended ? batch : batch.apply([], appended) };
}

function toolMessage(flags: LogFlags, call: ToolCall, content: MessageContent, isError: boolean): Message {
  const message = { role: "tool", toolCallId: call.id, name: call.name, content } as const;
  return isError && flags.errorFlagOnMessages ? { ...message, isError: true } : message;
}

/** The calls of the last reply that wait for a decision, in call order, for an `awaiting_approval` result (questions are `pendingQuestions`). */
export function pendingApprovals(context: AgentContext): ToolCall[] {
  const { batch } = context;
  if (batch === null) return [];
  const calls = batch.indexesIn("deciding").map((index) => batch.calls[index] as ToolCall);
  return context.askTools.length === 0 ? calls : calls.filter((call) => !isQuestion(context, call));
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
