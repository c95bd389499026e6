import { UsageError } from "../cli-error.js";
import { type Decisions, escapeCallId, type PendingQuestion, type ToolCall } from "../core-api.js";

/**
 * Refuses decisions for calls that do not wait for one, naming the calls that do: a decision for
 * an id the run has no pending call with would otherwise be dropped without a word. A chained id
 * (`<call id>/<child call id>`) under a call the log shows cut off is left to the resume, which
 * checks it against that call's child run.
 */
export function checkDecisions(
  undecided: readonly ToolCall[],
  decisions: Decisions,
  running: readonly ToolCall[] = [],
): void {
  const stray = strayIds(decisions, undecided, running);
  if (stray.length === 0) return;
  const list = stray.map((id) => `'${id}'`).join(", ");
  const waiting =
    undecided.length === 0
      ? "no call of this run waits for a decision"
      : `the calls that wait: ${undecided.map((call) => `${call.id} (${call.name})`).join(", ")}`;
  throw new UsageError(
    `${stray.length === 1 ? "call" : "calls"} ${list} ${stray.length === 1 ? "does" : "do"} not wait for a decision; ${waiting}`,
  );
}

/**
 * Answers by call id from `--answer <callId>=<answer>` flags: the answer is JSON when it parses as
 * JSON, else the text as it is. Own properties only, as decisions are; a flag without `=` or an id
 * answered twice is a usage error.
 */
export function answersOf(flags: readonly string[]): Record<string, unknown> {
  const answers = new Map<string, unknown>();
  for (const flag of flags) {
    const at = flag.indexOf("=");
    if (at <= 0) throw new UsageError(`--answer takes <callId>=<answer>; got '${flag}'`);
    const id = flag.slice(0, at);
    if (answers.has(id)) throw new UsageError(`question '${id}' is answered twice: give one --answer for it`);
    answers.set(id, parsed(flag.slice(at + 1)));
  }
  return Object.fromEntries(answers);
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Refuses answers for questions that do not wait, naming those that do; a chained id under a running call is left to the resume. */
export function checkAnswers(
  questions: readonly PendingQuestion[],
  answers: Readonly<Record<string, unknown>>,
  running: readonly ToolCall[] = [],
): void {
  const stray = strayIds(answers, questions, running);
  if (stray.length === 0) return;
  const waiting =
    questions.length === 0
      ? "no question of this run waits for an answer"
      : `the questions that wait: ${questions.map((question) => question.id).join(", ")}`;
  throw new UsageError(
    `${stray.map((id) => `'${id}'`).join(", ")} ${stray.length === 1 ? "is" : "are"} not waiting for an answer; ${waiting}`,
  );
}

/** The ids given that nothing waits on: neither one of `waiting`, nor chained under a call of `running` (left to the resume). */
function strayIds(
  given: Readonly<Record<string, unknown>>,
  waiting: readonly { readonly id: string }[],
  running: readonly ToolCall[],
): string[] {
  const ids = new Set(waiting.map((pending) => pending.id));
  const children = running.map((call) => `${escapeCallId(call.id)}/`);
  return Object.keys(given).filter((id) => !ids.has(id) && !children.some((at) => id.startsWith(at)));
}
