import type { Message } from "@agentloop/core";
import { emptyUserMessage, ownedField, type RequestRule, requestProblems, streamField } from "@agentloop/core/adapter";
import { OpenAIRequestError } from "./errors.js";

/** Fields that break the one-reply contract or that the adapter fills in itself. */
const RULES: Readonly<Record<string, RequestRule>> = {
  stream: streamField,
  stream_options: ownedField("the adapter sets `stream_options` itself when it streams"),
  n: (value) =>
    value === undefined || value === null || value === 1
      ? undefined
      : "a run takes one reply per model call; `n` must be 1 or left out",
  messages: ownedField("`messages` is the run's message list; give the task to runAgent"),
  tools: ownedField("`tools` come from the ToolRegistry"),
  functions: ownedField("`functions` is the legacy form of tools: register tools in the ToolRegistry"),
  function_call: ownedField("`function_call` is the legacy form of tool_choice: use `tool_choice`"),
  max_completion_tokens: ownedField("use the `maxTokens` option, which the run also reserves room for"),
  modalities: (value) =>
    Array.isArray(value) && value.includes("audio")
      ? "an audio reply has no text for the run to read; leave `audio` out of `modalities`"
      : undefined,
  audio: ownedField("an audio reply has no text for the run to read; leave `audio` out"),
};

/**
 * Throws `OpenAIRequestError` naming every request field the adapter cannot honour: `n` other than
 * 1, `stream`, `stream_options`, audio output, and the fields it fills in itself. Called once, when
 * the model is made, so a bad option fails before any request.
 */
export function refuseUnsupportedOptions(params: Readonly<Record<string, unknown>>): void {
  const problems = requestProblems(params, RULES);
  if (problems.length > 0) {
    throw new OpenAIRequestError(`openaiModel cannot honour these options: ${problems.join("; ")}`);
  }
}

/**
 * Throws `OpenAIRequestError` when a user message is empty or blank: an empty task is a mistake
 * the caller can fix, and some servers refuse it after the request is billed or queued.
 */
export function refuseEmptyUserMessages(messages: readonly Message[]): void {
  const index = emptyUserMessage(messages);
  if (index >= 0) {
    throw new OpenAIRequestError(
      `message ${index} (user) is empty: give the run a task, or the user's message, with some text`,
    );
  }
}

/**
 * Whether `tool_choice` forces a tool call (`"required"`, a named function or custom tool, or
 * `allowed_tools` in `required` mode). Such a choice is sent only while the last message is the
 * user's; once tool results follow, the run must be free to answer, or it could only end at its
 * step limit.
 */
export function forcesToolUse(choice: unknown): boolean {
  if (choice === "required") return true;
  if (typeof choice !== "object" || choice === null) return false;
  const { type, allowed_tools } = choice as { type?: unknown; allowed_tools?: { mode?: unknown } };
  return type === "function" || type === "custom" || (type === "allowed_tools" && allowed_tools?.mode === "required");
}
