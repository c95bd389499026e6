import type { ModelReply } from "@agentloop/core";
import {
  type FakeResponse,
  type FakeServer,
  type FakeStep,
  scriptedRoute,
  startFakeServer,
} from "@agentloop/provider-testkit";
import OpenAI from "openai";
import { checkChatCompletionRequest } from "./openai-wire-format.js";

/** A tool call as the server sends it: `arguments` is the raw JSON text; `id` may be empty or left out on purpose. */
export interface WireCall {
  readonly id?: string;
  readonly name: string;
  readonly arguments: string;
}

/** What one scripted completion carries; `usage: null` leaves the usage out, as some compatible servers do. */
export interface WireReply {
  readonly content?: string | null;
  readonly toolCalls?: readonly WireCall[];
  readonly finishReason?: "stop" | "length" | "tool_calls" | "content_filter";
  readonly usage?: { readonly prompt: number; readonly completion: number } | null;
}

export const MODEL = "gpt-4.1-mini";
let serial = 0;

/** A 200 answer shaped like a real `chat.completion` object. */
export function completion(reply: WireReply): FakeResponse {
  serial += 1;
  const calls = reply.toolCalls ?? [];
  const usage = reply.usage === undefined ? { prompt: 120, completion: 18 } : reply.usage;
  const message = {
    role: "assistant",
    content: reply.content ?? null,
    refusal: null,
    annotations: [],
    ...(calls.length === 0
      ? {}
      : {
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: call.arguments },
          })),
        }),
  };
  return {
    status: 200,
    headers: { "x-request-id": `req_${serial}`, "openai-processing-ms": "12" },
    body: {
      id: `chatcmpl-${serial}`,
      object: "chat.completion",
      created: 1_764_000_000 + serial,
      model: `${MODEL}-2025-04-14`,
      choices: [
        {
          index: 0,
          message,
          logprobs: null,
          finish_reason: reply.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop"),
        },
      ],
      ...(usage === null
        ? {}
        : {
            usage: {
              prompt_tokens: usage.prompt,
              completion_tokens: usage.completion,
              total_tokens: usage.prompt + usage.completion,
              prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
              completion_tokens_details: {
                reasoning_tokens: 0,
                audio_tokens: 0,
                accepted_prediction_tokens: 0,
                rejected_prediction_tokens: 0,
              },
            },
          }),
      service_tier: "default",
      system_fingerprint: "fp_test",
    },
  };
}

/** The completion that carries a core `ModelReply`, with no usage so that the core's estimate counts. */
export function completionOf(reply: ModelReply): FakeResponse {
  return completion({
    content: reply.content === "" && reply.toolCalls.length > 0 ? null : reply.content,
    toolCalls: reply.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: JSON.stringify(call.args) })),
    usage: null,
  });
}

function apiError(status: number, error: Record<string, unknown>, headers: Record<string, string> = {}): FakeResponse {
  return {
    status,
    headers: { "x-request-id": "req_error", ...headers },
    body: { error: { param: null, code: null, ...error } },
  };
}

/** The answers OpenAI gives when a request fails; retryable ones ask for a 1 ms wait (`retry-after-ms`) to keep tests fast. */
export const failures = {
  badKey: apiError(401, {
    message:
      "Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.",
    type: "invalid_request_error",
    code: "invalid_api_key",
  }),
  modelNotFound: apiError(404, {
    message: "The model `gpt-nope` does not exist or you do not have access to it.",
    type: "invalid_request_error",
    code: "model_not_found",
  }),
  rateLimited: apiError(
    429,
    {
      message: "Rate limit reached for requests. Please try again in 1ms.",
      type: "requests",
      code: "rate_limit_exceeded",
    },
    { "retry-after-ms": "1", "x-ratelimit-remaining-requests": "0" },
  ),
  serverError: apiError(
    500,
    { message: "The server had an error while processing your request. Sorry about that!", type: "server_error" },
    { "retry-after-ms": "1" },
  ),
} satisfies Record<string, FakeResponse>;

/** A fake OpenAI server that validates every request and answers with `steps`, and a real SDK client for it. */
export interface FakeOpenAI extends FakeServer {
  client(options?: { readonly apiKey?: string; readonly maxRetries?: number }): OpenAI;
}

/** Starts a fake Chat Completions server on 127.0.0.1 that answers valid requests with `steps`, in order. */
export async function startFakeOpenAI(steps: readonly FakeStep[]): Promise<FakeOpenAI> {
  const server = await startFakeServer({
    validate: checkChatCompletionRequest,
    refuse: (problems) => ({
      status: 400,
      headers: { "x-should-retry": "false" },
      body: { error: { message: problems.join("; "), type: "invalid_request_error", param: null, code: null } },
    }),
    route: scriptedRoute(steps),
  });
  return Object.assign(server, {
    client: (options: { apiKey?: string; maxRetries?: number } = {}) =>
      new OpenAI({
        apiKey: options.apiKey ?? "sk-test",
        baseURL: `${server.url}/v1`,
        maxRetries: options.maxRetries ?? 2,
      }),
  });
}
