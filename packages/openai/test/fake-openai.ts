import type { ModelReply } from "@agentloop/core";
import {
  type FakeResponse,
  type FakeServer,
  type FakeStep,
  type RecordedRequest,
  scriptedRoute,
  startFakeServer,
} from "@agentloop/provider-testkit";
import OpenAI from "openai";
import { completionChunks } from "./completion-chunks.js";
import { failures } from "./fixtures/errors.js";
import { checkServerRules, IssuedReasoning } from "./openai-server-rules.js";
import { checkChatCompletionRequest, type Dialect, REASONING_FIELD } from "./openai-wire-format.js";

export { failures };

/** A tool call as the server sends it: `arguments` is the raw JSON text; `id` may be empty or left out on purpose. */
export interface WireCall {
  readonly id?: string;
  readonly name: string;
  readonly arguments: string;
}

/** What one scripted completion carries; `usage: null` leaves the usage out, as some compatible servers do. */
export interface WireReply {
  readonly content?: string | null;
  readonly refusal?: string;
  readonly toolCalls?: readonly WireCall[];
  readonly finishReason?: "stop" | "length" | "tool_calls" | "content_filter";
  readonly usage?: { readonly prompt: number; readonly completion: number; readonly cached?: number } | null;
  /** Reasoning text, sent under `reasoningField`. */
  readonly reasoning?: string;
  readonly reasoningField?: "reasoning_content" | "reasoning";
}

export const MODEL = "gpt-4.1-mini";
let serial = 0;

/** A 200 answer shaped like a real `chat.completion` object (see fixtures/openai.ts for recorded ones). */
export function completion(reply: WireReply): FakeResponse {
  serial += 1;
  const calls = reply.toolCalls ?? [];
  const usage = reply.usage === undefined ? { prompt: 120, completion: 18 } : reply.usage;
  const message = {
    role: "assistant",
    content: reply.content ?? null,
    refusal: reply.refusal ?? null,
    annotations: [],
    ...(reply.reasoning === undefined ? {} : { [reply.reasoningField ?? "reasoning_content"]: reply.reasoning }),
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
              prompt_tokens_details: { cached_tokens: usage.cached ?? 0, audio_tokens: 0 },
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

/** The completion that carries a core `ModelReply`; without usage on the reply, the body has none, so that the core's estimate counts. */
export function completionOf(
  reply: ModelReply,
  reasoningField: "reasoning_content" | "reasoning" = "reasoning_content",
): FakeResponse {
  const reasoning = reply.reasoning?.flatMap((part) => (part.type === "reasoning" ? [part.text] : [])).join("");
  return completion({
    content: reply.content === "" && reply.toolCalls.length > 0 ? null : reply.content,
    toolCalls: reply.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: JSON.stringify(call.args) })),
    usage:
      reply.usage === undefined
        ? null
        : {
            prompt: reply.usage.inputTokens,
            completion: reply.usage.outputTokens,
            ...(reply.usage.cachedInputTokens === undefined ? {} : { cached: reply.usage.cachedInputTokens }),
          },
    ...(reasoning === undefined ? {} : { reasoning, reasoningField }),
  });
}

/** A fake OpenAI-compatible server that validates every request and answers with `steps`, and a real SDK client for it. */
export interface FakeOpenAI extends FakeServer {
  client(options?: { readonly apiKey?: string; readonly maxRetries?: number }): OpenAI;
}

/**
 * Starts a fake Chat Completions server on 127.0.0.1 playing `dialect` (OpenAI by default) that
 * answers valid requests with `steps`, in order. A 200 completion answers a streaming request as
 * the chunks it adds up to (see `completionChunks`); requests that break the wire format or the
 * server's rules get a 400 with the server's own words.
 */
export async function startFakeOpenAI(
  steps: readonly FakeStep[],
  options: { readonly dialect?: Dialect } = {},
): Promise<FakeOpenAI> {
  const dialect = options.dialect ?? "openai";
  const issued = new IssuedReasoning();
  const scripted = scriptedRoute(steps);
  const server = await startFakeServer({
    validate: (request) => [
      ...checkChatCompletionRequest(request, dialect),
      ...checkServerRules(request, dialect, issued),
    ],
    refuse: (problems) => ({
      status: 400,
      headers: { "x-should-retry": "false" },
      body: {
        error: {
          message: problems.join("; "),
          type: "invalid_request_error",
          param: null,
          code: dialect === "deepseek" ? "invalid_request_error" : null,
        },
      },
    }),
    route: async (request, index) => {
      const answer = await scripted(request, index);
      if (!("body" in answer) || answer.status !== 200) return answer;
      issued.remember(answer.body);
      return wantsStream(request) ? completionChunks(answer.body, answer.headers) : answer;
    },
  });
  return Object.assign(server, {
    client: (clientOptions: { apiKey?: string; maxRetries?: number } = {}) =>
      new OpenAI({
        apiKey: clientOptions.apiKey ?? "sk-test",
        baseURL: `${server.url}/v1`,
        maxRetries: clientOptions.maxRetries ?? 2,
      }),
  });
}

function wantsStream(request: RecordedRequest): boolean {
  return (request.body as { stream?: unknown } | undefined)?.stream === true;
}

/** The reasoning field `dialect` sends, for scripted replies. */
export function reasoningFieldOf(dialect: Dialect): "reasoning_content" | "reasoning" {
  return REASONING_FIELD[dialect] ?? "reasoning_content";
}
