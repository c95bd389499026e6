import {
  type Message,
  type Model,
  type ModelCallOptions,
  type ModelReply,
  sdkRequestOptions,
  type ToolSpec,
} from "@agentloop/core/adapter";
import type OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { classifyOpenAIError } from "./classify-error.js";
import { fromOpenAICompletion } from "./from-openai-completion.js";
import { withoutQuotaRetries } from "./quota-fetch.js";
import { forcesToolUse, refuseEmptyUserMessages, refuseUnsupportedOptions } from "./request-rules.js";
import { toResponseFormat, withoutAnswerNulls } from "./response-format.js";
import { streamCompletion } from "./stream-completion.js";
import { withoutStrictNulls } from "./strict-schema.js";
import { type ReasoningField, toOpenAIMessages, toOpenAIToolChoice, toOpenAITools } from "./to-openai-request.js";

/** Request fields the adapter fills in itself, or that would break the one-reply contract (refused at run time too). */
type OwnedParams =
  | "model"
  | "messages"
  | "tools"
  | "stream"
  | "stream_options"
  | "n"
  | "functions"
  | "function_call"
  | "max_completion_tokens";

/** Every other Chat Completions request field, sent as given: `temperature`, `seed`, `tool_choice`, `reasoning_effort`, the legacy `max_tokens`... */
export type OpenAIRequestParams = Omit<ChatCompletionCreateParamsNonStreaming, OwnedParams>;

/** What `openaiModel` needs: a configured client, a model name, and optional limits and request fields. */
export interface OpenAIModelOptions extends OpenAIRequestParams {
  /** The official SDK client; its `baseURL` picks the server (OpenAI, vLLM, Ollama, llama.cpp, LM Studio...). */
  readonly client: OpenAI;
  readonly model: ChatCompletionCreateParamsNonStreaming["model"];
  /** Most tokens one reply may have, sent as `max_completion_tokens`; a positive whole number. */
  readonly maxTokens?: number;
  /** Retries of a rate-limited (429, except `insufficient_quota`), timed-out or failing (5xx) request, with the SDK's backoff; when not given, the client's setting (2), or 0 in a run with `retry` or `fallbackModels`. */
  readonly maxRetries?: number;
  /** Milliseconds one request may take; the client's setting when not given. */
  readonly timeout?: number;
  /**
   * The assistant-message field a reply's reasoning text goes back in: `reasoning_content`
   * (default; DeepSeek, which refuses tool-call history without it, and llama.cpp) or `reasoning`
   * (vLLM 0.11 and later, Ollama, LM Studio), or `"none"`.
   */
  readonly reasoningField?: ReasoningField;
  /**
   * Sends every tool with `strict: true`, so that OpenAI holds the model's arguments to the
   * tool's schema as it writes them (Structured Outputs). The schemas are adapted on the wire:
   * every property becomes required, an optional one nullable (a `null` the model sends for it is
   * dropped before the call is checked and run), objects are closed; a schema strict mode cannot
   * express fails the first model call with `OpenAIRequestError`, naming the tool. Off by default:
   * compatible servers vary in what they do with it.
   */
  readonly strict?: boolean;
}

/** A `Model` on Chat Completions that also tells how long its replies may be, in tokens (`undefined`: no limit was set). */
export type OpenAIModel = Model & { readonly maxReplyTokens: number | undefined; readonly modelName: string };

/**
 * A `Model` on the OpenAI Chat Completions API through the official `openai` SDK, for OpenAI or
 * any compatible server. Each call sends the whole message list (reasoning included, see
 * `reasoningField`) and the tool specs, passes the run's AbortSignal to the request, and maps the
 * first choice back to a `ModelReply`; with `onDelta` it streams and reports each piece as it
 * arrives. Options it cannot honour are refused when the model is made, an empty user message
 * before any request. Mistakes of the model come back as data for the harness to report; what the
 * model cannot fix (bad key, empty quota, other 4xx, a server still failing after `maxRetries`)
 * rejects with the SDK's error, marked retryable or
 * not for the run's `retry` and `fallbackModels` (`ModelError.retryable`).
 */
export function openaiModel(options: OpenAIModelOptions): OpenAIModel {
  const {
    client,
    model,
    maxTokens,
    maxRetries,
    timeout,
    reasoningField = "reasoning_content",
    strict = false,
    ...params
  } = options;
  if (typeof strict !== "boolean") throw new TypeError(`strict must be true or false, got ${String(strict)}`);
  if (maxTokens !== undefined && !(Number.isSafeInteger(maxTokens) && maxTokens > 0)) {
    throw new RangeError(`maxTokens must be a positive whole number, got ${maxTokens}`);
  }
  if (maxTokens !== undefined && params.max_tokens != null) {
    throw new RangeError("give maxTokens or the legacy max_tokens, not both");
  }
  refuseUnsupportedOptions(params);
  const { tool_choice, parallel_tool_calls, ...always } = params;
  const quotaAware = withoutQuotaRetries(client);

  const toolParams = (messages: readonly Message[]) => {
    // OpenAI refuses tool_choice and parallel_tool_calls in a request without tools; a forced
    // choice holds only until tool results follow, so that the run can still end with an answer.
    const lapsed = forcesToolUse(tool_choice) && messages.at(-1)?.role !== "user";
    return {
      ...(tool_choice === undefined || lapsed ? {} : { tool_choice }),
      ...(parallel_tool_calls === undefined ? {} : { parallel_tool_calls }),
    };
  };

  const call = async (
    messages: readonly Message[],
    tools: readonly ToolSpec[],
    { signal, onDelta, harnessRetries, output, toolChoice }: ModelCallOptions,
  ): Promise<ModelReply> => {
    refuseEmptyUserMessages(messages);
    // The step's choice (from `prepareStep`) wins over the one the model was made with.
    const chosen = toolChoice === undefined ? {} : { tool_choice: toOpenAIToolChoice(toolChoice) };
    const body: ChatCompletionCreateParamsNonStreaming = {
      ...always,
      model,
      messages: toOpenAIMessages(messages, reasoningField),
      ...(tools.length === 0 ? {} : { tools: toOpenAITools(tools, strict), ...toolParams(messages), ...chosen }),
      ...(maxTokens === undefined ? {} : { max_completion_tokens: maxTokens }),
      ...(output === undefined ? {} : { response_format: toResponseFormat(output, strict) }),
    };
    const options = sdkRequestOptions({ maxRetries, timeout }, harnessRetries);
    const completion = await (onDelta === undefined
      ? quotaAware.chat.completions.create(body, { ...options, signal })
      : streamCompletion(body, { client: quotaAware, requestOptions: options, signal, onDelta })
    ).catch((error: unknown) => {
      throw classifyOpenAIError(error);
    });
    const reply = fromOpenAICompletion(completion, messages);
    if (!strict) return reply;
    const answered = output === undefined ? reply : withoutAnswerNulls(reply, output);
    return { ...answered, toolCalls: answered.toolCalls.map((toolCall) => withoutStrictNulls(toolCall, tools)) };
  };
  return Object.assign(call, { maxReplyTokens: maxTokens ?? params.max_tokens ?? undefined, modelName: model });
}
