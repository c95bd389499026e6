import type { Message, Model, ModelReply, ToolSpec } from "@agentloop/core";
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import { fromAnthropicMessage } from "./from-anthropic-message.js";
import { toAnthropicPrompt, toAnthropicTools } from "./to-anthropic-request.js";

/**
 * Request fields the adapter fills in itself. `thinking` is left out on purpose: with tools, the
 * API wants each reply's thinking blocks sent back unchanged, and the agent's messages do not keep them.
 */
type OwnedParams = "model" | "messages" | "system" | "tools" | "max_tokens" | "stream" | "thinking";

/** Every other Messages API request field, sent as given: `tool_choice`, `stop_sequences`, `metadata`, `service_tier`... */
export type AnthropicRequestParams = Omit<MessageCreateParamsNonStreaming, OwnedParams>;

/** What `anthropicModel` needs: a configured client, a model name, the reply limit, and optional request fields. */
export interface AnthropicModelOptions extends AnthropicRequestParams {
  /** The official SDK client (key, `baseURL`, default retries and timeout). */
  readonly client: Anthropic;
  readonly model: MessageCreateParamsNonStreaming["model"];
  /** Most tokens one reply may have (`max_tokens`, which the API requires); a positive whole number. */
  readonly maxTokens: number;
  /** Retries of a rate-limited (429), overloaded (529) or failing (5xx) request, with the SDK's backoff; the client's setting (2) when not given. */
  readonly maxRetries?: number;
  /** Milliseconds one request may take; without it the SDK derives one from `maxTokens` and refuses more than 10 minutes. */
  readonly timeout?: number;
}

/** A `Model` on Anthropic Messages that also tells how long its replies may be, in tokens. */
export type AnthropicModel = Model & { readonly maxReplyTokens: number };

/**
 * A `Model` on the Anthropic Messages API (non-streaming) through the official `@anthropic-ai/sdk`.
 * Each call sends the system prompt apart, the whole conversation as alternating turns with
 * `tool_use` and `tool_result` blocks, and the tool specs; passes the run's AbortSignal to the
 * request; and maps the reply back to a `ModelReply`. Mistakes of the model come back as data for
 * the harness to report; what the model cannot fix (bad key, other 4xx, a server still failing
 * after `maxRetries`) rejects with the SDK's error.
 */
export function anthropicModel(options: AnthropicModelOptions): AnthropicModel {
  const { client, model, maxTokens, maxRetries, timeout, ...params } = options;
  if (!(Number.isSafeInteger(maxTokens) && maxTokens > 0)) {
    throw new RangeError(`maxTokens must be a positive whole number, got ${maxTokens}`);
  }
  // The API refuses tool_choice in a request without tools.
  const { tool_choice, ...always } = params;
  const requestOptions = {
    ...(maxRetries === undefined ? {} : { maxRetries }),
    ...(timeout === undefined ? {} : { timeout }),
  };

  const call = async (
    messages: readonly Message[],
    tools: readonly ToolSpec[],
    { signal }: { readonly signal: AbortSignal },
  ): Promise<ModelReply> => {
    const body: MessageCreateParamsNonStreaming = {
      ...always,
      model,
      max_tokens: maxTokens,
      ...toAnthropicPrompt(messages),
      ...(tools.length === 0
        ? {}
        : { tools: toAnthropicTools(tools), ...(tool_choice === undefined ? {} : { tool_choice }) }),
    };
    const reply = await client.messages.create(body, { ...requestOptions, signal });
    return fromAnthropicMessage(reply, messages);
  };
  return Object.assign(call, { maxReplyTokens: maxTokens });
}
