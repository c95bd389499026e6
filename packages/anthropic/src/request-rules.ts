import type { Message } from "@agentloop/core";
import { emptyUserMessage, ownedField, type RequestRule, requestProblems, streamField } from "@agentloop/core/adapter";
import { AnthropicRequestError } from "./errors.js";

const thinkingOn = (params: Readonly<Record<string, unknown>>): boolean => {
  const type = (params.thinking as { type?: unknown } | undefined)?.type;
  return type === "enabled" || type === "adaptive";
};

/** Fields the adapter fills in itself, and combinations the API refuses with thinking on or with `maxTokens`. */
const rules = (maxTokens: number): Readonly<Record<string, RequestRule>> => ({
  stream: streamField,
  messages: ownedField("`messages` is the run's message list; give the task to runAgent"),
  system: ownedField("give the system prompt to runAgent (its `system` option), which keeps it in the trace"),
  tools: ownedField("`tools` come from the ToolRegistry"),
  max_tokens: ownedField("use the `maxTokens` option, which the run also reserves room for"),
  thinking: (value) => {
    const budget = (value as { type?: unknown; budget_tokens?: unknown } | undefined)?.budget_tokens;
    return typeof budget === "number" && budget >= maxTokens
      ? `thinking.budget_tokens (${budget}) must be less than maxTokens (${maxTokens}), which counts thinking too`
      : undefined;
  },
  tool_choice: (value, params) =>
    forcesToolUse(value) && thinkingOn(params)
      ? "with thinking on, the API takes only tool_choice `auto` or `none`"
      : undefined,
});

/**
 * Throws `AnthropicRequestError` naming every request field the adapter cannot honour: `stream`,
 * the fields it fills in itself, a thinking budget that leaves no room for the reply, and a forced
 * `tool_choice` with thinking on. Called once, when the model is made, so a bad option fails before
 * any request.
 */
export function refuseUnsupportedOptions(params: Readonly<Record<string, unknown>>, maxTokens: number): void {
  const problems = requestProblems(params, rules(maxTokens));
  if (problems.length > 0) {
    throw new AnthropicRequestError(`anthropicModel cannot honour these options: ${problems.join("; ")}`);
  }
}

/**
 * Throws `AnthropicRequestError` when a user message is empty or blank, which the API answers with
 * a 400 ("all messages must have non-empty content..."): the caller can fix it, nothing is sent.
 */
export function refuseEmptyUserMessages(messages: readonly Message[]): void {
  const index = emptyUserMessage(messages);
  if (index >= 0) {
    throw new AnthropicRequestError(
      `message ${index} (user) is empty: the Messages API refuses empty content; give the run a task with some text`,
    );
  }
}

/**
 * Whether `tool_choice` forces a tool call (`any`, or a named `tool`). Such a choice is sent only
 * while the last message is the user's; once tool results follow, the run must be free to answer,
 * or it could only end at its step limit.
 */
export function forcesToolUse(choice: unknown): boolean {
  const type = (choice as { type?: unknown } | null | undefined)?.type;
  return type === "any" || type === "tool";
}
