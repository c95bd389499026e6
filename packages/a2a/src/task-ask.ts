import type { Message, Part } from "@a2a-js/sdk";
import type { Decision, MessageContent, PendingQuestion, ToolCall } from "@agentloop/core";
import { type ConversationAsk, ServeRefusal } from "@agentloop/core/serve";

/**
 * The user's message as a run's content (pure): its text parts as they are, its data parts as
 * JSON text. A file part is refused (400): this door takes text and data.
 */
export function contentOf(message: Message): MessageContent | ServeRefusal {
  const texts: string[] = [];
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case === "text") texts.push(content.value);
    else if (content?.$case === "data") texts.push(JSON.stringify(content.value));
    else return new ServeRefusal(400, "the message has a file part: this agent takes text and data parts");
  }
  const text = texts.join("\n");
  if (text.trim() === "") return new ServeRefusal(400, "the message has no text or data to run");
  return text;
}

/**
 * What a follow-up message on a task that waits asks (pure): decisions on the calls and answers to
 * the questions it waits for. A data part `{ decisions: { <id>: { approved, reason? } }, answers:
 * { <id>: value } }` names them; a task that waits for one thing takes the message itself — a
 * call's decision as `yes`/`no` (or `{ approved }`), a question's answer as its text (JSON when
 * the question's shape is not a string) or its data part.
 */
export function askOf(
  message: Message,
  calls: readonly ToolCall[],
  questions: readonly PendingQuestion[],
): ConversationAsk | ServeRefusal {
  const named = namedAnswers(message.parts);
  if (named !== undefined) return named;
  const [call] = calls;
  const [question] = questions;
  if (calls.length + questions.length !== 1) {
    const ids = [...calls, ...questions].map(({ id }) => `'${id}'`).join(", ");
    return new ServeRefusal(
      400,
      `the task waits for ${ids}: answer each by its id in a data part { decisions: { <id>: { approved } }, answers: { <id>: <answer> } }`,
    );
  }
  if (call !== undefined) {
    const decision = decisionOf(message.parts);
    if (decision === undefined) {
      return new ServeRefusal(400, `the task asks whether to run ${call.name}: answer yes or no, or { approved }`);
    }
    return { kind: "resume", decisions: { [call.id]: decision }, answers: {} } satisfies ConversationAsk;
  }
  return {
    kind: "resume",
    decisions: {},
    answers: { [(question as PendingQuestion).id]: answerOf(message.parts, question as PendingQuestion) },
  } satisfies ConversationAsk;
}

function namedAnswers(parts: readonly Part[]): ConversationAsk | ServeRefusal | undefined {
  for (const part of parts) {
    const value: unknown = part.content?.$case === "data" ? part.content.value : undefined;
    if (typeof value !== "object" || value === null) continue;
    const { decisions, answers } = value as { decisions?: unknown; answers?: unknown };
    if (decisions === undefined && answers === undefined) continue;
    const decided: Record<string, Decision> = {};
    for (const [id, raw] of Object.entries(isRecord(decisions) ? decisions : {})) {
      const decision = isRecord(raw) ? decisionOfValue(raw) : undefined;
      if (decision === undefined) return new ServeRefusal(400, `the decision on '${id}' must be { approved: boolean }`);
      decided[id] = decision;
    }
    return { kind: "resume", decisions: decided, answers: isRecord(answers) ? { ...answers } : {} };
  }
  return undefined;
}

function decisionOf(parts: readonly Part[]): Decision | undefined {
  for (const part of parts) {
    const content = part.content;
    if (content?.$case === "data" && isRecord(content.value)) return decisionOfValue(content.value);
    if (content?.$case !== "text") continue;
    const text = content.value.trim();
    const parsed = parseJson(text);
    if (isRecord(parsed)) return decisionOfValue(parsed);
    if (/^(yes|y|approve|approved|allow|ok|okay)\b/i.test(text)) return { approved: true };
    if (/^(no|n|deny|denied|reject|rejected|decline|declined)\b/i.test(text)) return { approved: false, reason: text };
  }
  return undefined;
}

function decisionOfValue(value: Readonly<Record<string, unknown>>): Decision | undefined {
  if (typeof value.approved !== "boolean") return undefined;
  return { approved: value.approved, ...(typeof value.reason === "string" ? { reason: value.reason } : {}) };
}

function answerOf(parts: readonly Part[], question: PendingQuestion): unknown {
  const data = parts.find((part) => part.content?.$case === "data")?.content;
  if (data?.$case === "data") return data.value;
  const text = parts
    .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
    .filter((each) => each !== "")
    .join("\n");
  if (question.schema === undefined || question.schema.type === "string") return text;
  const parsed = parseJson(text);
  return parsed === undefined ? text : parsed;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
