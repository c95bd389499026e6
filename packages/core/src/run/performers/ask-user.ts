import type { AgentRequest, PendingQuestion, QuestionAnswered, ToolCall } from "../../data/index.js";
import { copyJson, describeThrown } from "../../data/index.js";
import type { ToolRegistry } from "../../tools/index.js";
import { compileParameters } from "../../tools/index.js";
import { answerOf, type EventAnswer, UNANSWERED, type Unanswered } from "./event-answer.js";

/**
 * Checks `answer` for the question of tool `toolName`: plain JSON, and of the tool's answer shape
 * (a Standard Schema's output, transforms applied, is what is kept), or, for a question a running
 * tool asked, of the JSON Schema `schema` it gave. Never rejects: a refusal is one sentence.
 */
export async function checkAnswer(
  registry: ToolRegistry,
  toolName: string,
  answer: unknown,
  schema?: Readonly<Record<string, unknown>>,
): Promise<{ readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string }> {
  const copied = copyJson(answer);
  if (!copied.ok) return { ok: false, problem: `the answer is not JSON: ${copied.problem}` };
  const performer = registry.performerOf(toolName);
  let compiled = performer?.kind === "ask-user" ? performer.answer : undefined;
  if (compiled === undefined && schema !== undefined) {
    try {
      compiled = compileParameters(`${toolName}: answer`, schema);
    } catch (error) {
      return { ok: false, problem: `the question's answer shape cannot be enforced: ${describeThrown(error)}` };
    }
  }
  if (compiled === undefined) return copied;
  try {
    const checked = await compiled.check(copied.value);
    if (!checked.ok) return { ok: false, problem: checked.problem };
    const kept = copyJson(checked.args);
    return kept.ok
      ? kept
      : { ok: false, problem: `the answer's schema made it something that is not JSON: ${kept.problem}` };
  } catch (error) {
    return { ok: false, problem: `the answer's schema could not check it: ${describeThrown(error)}` };
  }
}

/**
 * Gives the answer to a question (checked already), at once or once it comes, or none (the run
 * pauses for it); `asked` is the question itself when a running tool asked it (absent: an ask-user
 * tool's call, whose arguments hold it).
 */
export type AnswerPort = (
  call: ToolCall,
  asked?: PendingQuestion,
) => { readonly answer: unknown } | undefined | Promise<{ readonly answer: unknown } | undefined>;

/** What asking a person came to: the answer as the event that gives it, or none yet (the call waits). */
export type QuestionAnswer = EventAnswer<QuestionAnswered> | Unanswered;

/** Answers an `askUser` request from the answers given (checked before the run started), or leaves it waiting. */
export async function askPerson(
  answers: AnswerPort | undefined,
  request: Extract<AgentRequest, { type: "askUser" }>,
): Promise<QuestionAnswer> {
  const { call } = request;
  const given = await (request.asked === undefined ? answers?.(call) : answers?.(call, pendingOf(request)));
  return given === undefined ? UNANSWERED : answeredWith(call, given.answer);
}

/** The question an `askUser` request asks, as a paused result shows it. */
export function pendingOf(request: Extract<AgentRequest, { type: "askUser" }>): PendingQuestion {
  const { call, question, schema } = request;
  return schema === undefined ? { id: call.id, question } : { id: call.id, question, schema };
}

/**
 * The answer a record given from outside makes for the question of `call`: a durable engine keeps
 * it as `{ answer }` (checked when it was given). Throws a `TypeError` for a record of another shape.
 */
export function answeredFrom(call: ToolCall, record: unknown): EventAnswer<QuestionAnswered> {
  if (typeof record !== "object" || record === null || !Object.hasOwn(record, "answer")) {
    throw new TypeError(
      `the answer to question '${call.id}' must be kept as { answer }; got ${JSON.stringify(record) ?? String(record)}`,
    );
  }
  return answeredWith(call, (record as { readonly answer: unknown }).answer);
}

/** The answer a value given from outside makes for the question of `call`. */
export function answeredWith(call: ToolCall, answer: unknown): EventAnswer<QuestionAnswered> {
  return answerOf({ type: "question.answered", callId: call.id, answer });
}
