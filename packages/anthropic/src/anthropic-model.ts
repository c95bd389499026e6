import {
  type Message,
  type Model,
  type ModelCallOptions,
  type ModelDelta,
  type ModelReply,
  sdkRequestOptions,
  type ToolSpec,
} from "@agentloop/core/adapter";
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import { withCacheBreakpoints } from "./cache-breakpoints.js";
import { classifyAnthropicError } from "./classify-error.js";
import type { AnthropicClient } from "./client.js";
import { fromAnthropicMessage } from "./from-anthropic-message.js";
import { forcesToolUse, refuseEmptyUserMessages, refuseUnsupportedOptions } from "./request-rules.js";
import { streamMessage } from "./stream-message.js";
import { toAnthropicPrompt, toAnthropicToolChoice, toAnthropicTools } from "./to-anthropic-request.js";

/** Request fields the adapter fills in itself (refused at run time too). */
type OwnedParams = "model" | "messages" | "system" | "tools" | "max_tokens" | "stream";

/** Every other Messages API request field, sent as given: `thinking`, `tool_choice`, `stop_sequences`, `metadata`, `service_tier`... */
export type AnthropicRequestParams = Omit<MessageCreateParamsNonStreaming, OwnedParams>;

/** What `anthropicModel` needs: a configured client, a model name, the reply limit, and optional request fields. */
export interface AnthropicModelOptions extends AnthropicRequestParams {
  /** The SDK client (key, `baseURL`, default retries and timeout): `Anthropic`, `AnthropicBedrock` or `AnthropicVertex`. */
  readonly client: AnthropicClient;
  readonly model: MessageCreateParamsNonStreaming["model"];
  /** Most tokens one reply may have, thinking included (`max_tokens`, which the API requires); a positive whole number. */
  readonly maxTokens: number;
  /** Retries of a rate-limited (429), overloaded (529) or failing (5xx) request, with the SDK's backoff; when not given, the client's setting (2), or 0 in a run with `retry` or `fallbackModels`. */
  readonly maxRetries?: number;
  /** Milliseconds one request may take; without it the SDK derives one from `maxTokens` and refuses more than 10 minutes unless streaming. */
  readonly timeout?: number;
  /**
   * Marks the stable prefix of each request (the tools, the system prompt, the conversation so
   * far) for the prompt cache, so that each call reads what the last one wrote (default true);
   * `false` sends no `cache_control` at all.
   */
  readonly promptCache?: boolean;
}

/** A `Model` on Anthropic Messages that also tells how long its replies may be, in tokens, and its model name (for `pricing`). */
export type AnthropicModel = Model & { readonly maxReplyTokens: number; readonly modelName: string };

/**
 * A `Model` on the Anthropic Messages API through the official `@anthropic-ai/sdk`. Each call
 * sends the system prompt apart, the whole conversation as alternating turns (each reply's
 * thinking blocks first and unchanged, its text, its `tool_use` blocks, then the `tool_result`
 * blocks), and the tool specs; passes the run's AbortSignal to the request; and maps the reply back
 * to a `ModelReply`. With `onDelta` it streams and reports each piece as it arrives. Options it
 * cannot honour are refused when the model is made, an empty user message before any request.
 * Mistakes of the model come back as data for the harness to report; what the model cannot fix
 * (bad key, other 4xx, a server still failing after `maxRetries`) rejects with the SDK's error,
 * marked retryable or not for the run's `retry` and `fallbackModels` (`ModelError.retryable`).
 */
export function anthropicModel(options: AnthropicModelOptions): AnthropicModel {
  const { client, model, maxTokens, maxRetries, timeout, promptCache = true, ...params } = options;
  if (!(Number.isSafeInteger(maxTokens) && maxTokens > 0)) {
    throw new RangeError(`maxTokens must be a positive whole number, got ${maxTokens}`);
  }
  if (typeof promptCache !== "boolean") throw new TypeError(`promptCache must be a boolean, got ${typeof promptCache}`);
  refuseUnsupportedOptions(params, maxTokens);
  const { tool_choice, ...always } = params;
  // The API refuses tool_choice in a request without tools; a forced choice holds only until tool
  // results follow, so that the run can still end with an answer.
  const toolChoice = (messages: readonly Message[]) =>
    tool_choice === undefined || (forcesToolUse(tool_choice) && messages.at(-1)?.role !== "user")
      ? {}
      : { tool_choice };

  const call = async (
    messages: readonly Message[],
    tools: readonly ToolSpec[],
    { signal, onDelta, harnessRetries, output, toolChoice: stepChoice }: ModelCallOptions,
  ): Promise<ModelReply> => {
    refuseEmptyUserMessages(messages);
    // The step's choice (from `prepareStep`) wins over the one the model was made with.
    const chosen = stepChoice === undefined ? toolChoice(messages) : { tool_choice: toAnthropicToolChoice(stepChoice) };
    const request: MessageCreateParamsNonStreaming = {
      ...always,
      model,
      max_tokens: maxTokens,
      ...toAnthropicPrompt(messages),
      ...(tools.length === 0 ? {} : { tools: toAnthropicTools(tools), ...chosen }),
      ...(output === undefined ? {} : { output_config: answerFormat(always.output_config, output) }),
    };
    const body = promptCache ? withCacheBreakpoints(request) : request;
    const options = sdkRequestOptions({ maxRetries, timeout }, harnessRetries);
    const failed = (error: unknown) => {
      throw classifyAnthropicError(error);
    };
    if (onDelta === undefined) {
      return fromAnthropicMessage(await client.messages.create(body, { ...options, signal }).catch(failed), messages);
    }
    const tally = textTally(onDelta);
    const streamed = await streamMessage(body, {
      client,
      requestOptions: options,
      signal,
      onDelta: tally.onDelta,
    }).catch(failed);
    const reply = fromAnthropicMessage(streamed, messages);
    tally.settle(reply.content);
    return reply;
  };
  return Object.assign(call, { maxReplyTokens: maxTokens, modelName: model });
}

/**
 * Structured outputs (`output_config.format`, a JSON Schema the answer is held to), kept beside
 * any other `output_config` the caller set (its `effort`).
 */
function answerFormat(
  config: MessageCreateParamsNonStreaming["output_config"],
  output: NonNullable<ModelCallOptions["output"]>,
): NonNullable<MessageCreateParamsNonStreaming["output_config"]> {
  const { $schema: _dialect, ...schema } = output.schema;
  return { ...config, format: { type: "json_schema", schema } };
}

/**
 * Counts the text streamed so far, so that text the reply has beyond it (a refusal's explanation,
 * which arrives with the stop reason, not as text) is reported too: the text deltas always add up
 * to the reply's content.
 */
function textTally(onDelta: (delta: ModelDelta) => void) {
  let streamed = "";
  return {
    onDelta: (delta: ModelDelta) => {
      if (delta.type === "text-delta") streamed += delta.text;
      onDelta(delta);
    },
    settle: (content: string) => {
      if (content.length > streamed.length && content.startsWith(streamed)) {
        onDelta({ type: "text-delta", text: content.slice(streamed.length) });
      }
    },
  };
}
