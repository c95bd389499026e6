import type { ModelReply } from "@agentloop/core";
import {
  type FakeResponse,
  type FakeServer,
  type FakeStep,
  scriptedRoute,
  startFakeServer,
} from "@agentloop/provider-testkit";
import Anthropic from "@anthropic-ai/sdk";
import { checkMessagesRequest } from "./anthropic-wire-format.js";

/** One content block of a scripted reply: text, or a tool use whose `id` may be left out on purpose. */
export type WireBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id?: string; readonly name: string; readonly input: unknown };

/** What one scripted message carries; `usage: null` leaves the usage out, as a minimal compatible server might. */
export interface WireReply {
  readonly content: readonly WireBlock[];
  readonly stopReason?: "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal";
  readonly usage?: { readonly input: number; readonly output: number } | null;
}

export const MODEL = "claude-sonnet-4-5";
let serial = 0;

/** A 200 answer shaped like a real Messages API `message` object. */
export function message(reply: WireReply): FakeResponse {
  serial += 1;
  const hasToolUse = reply.content.some((block) => block.type === "tool_use");
  const usage = reply.usage === undefined ? { input: 340, output: 25 } : reply.usage;
  return {
    status: 200,
    headers: { "request-id": `req_0${serial}`, "anthropic-organization-id": "org-test" },
    body: {
      id: `msg_0${serial}`,
      type: "message",
      role: "assistant",
      model: `${MODEL}-20250929`,
      content: reply.content.map((block) =>
        block.type === "text" ? { ...block, citations: null } : { ...block, caller: { type: "direct" } },
      ),
      stop_reason: reply.stopReason ?? (hasToolUse ? "tool_use" : "end_turn"),
      stop_sequence: null,
      stop_details: null,
      container: null,
      ...(usage === null
        ? {}
        : {
            usage: {
              input_tokens: usage.input,
              output_tokens: usage.output,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 0,
              cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
              server_tool_use: null,
              service_tier: "standard",
            },
          }),
    },
  };
}

/** The message that carries a core `ModelReply`, with no usage so that the core's estimate counts. */
export function messageOf(reply: ModelReply): FakeResponse {
  return message({
    content: [
      ...(reply.content === "" ? [] : [{ type: "text" as const, text: reply.content }]),
      ...reply.toolCalls.map((call) => ({ type: "tool_use" as const, id: call.id, name: call.name, input: call.args })),
    ],
    usage: null,
  });
}

function apiError(status: number, type: string, text: string, headers: Record<string, string> = {}): FakeResponse {
  return {
    status,
    headers: { "request-id": "req_error", ...headers },
    body: { type: "error", error: { type, message: text }, request_id: "req_error" },
  };
}

/** The answers Anthropic gives when a request fails; retryable ones ask for a 1 ms wait (`retry-after-ms`) to keep tests fast. */
export const failures = {
  badKey: apiError(401, "authentication_error", "invalid x-api-key"),
  modelNotFound: apiError(404, "not_found_error", "model: claude-nope"),
  rateLimited: apiError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", {
    "retry-after-ms": "1",
    "retry-after": "1",
  }),
  serverError: apiError(500, "api_error", "Internal server error", { "retry-after-ms": "1" }),
  overloaded: apiError(529, "overloaded_error", "Overloaded", { "retry-after-ms": "1" }),
} satisfies Record<string, FakeResponse>;

/** A fake Anthropic server that validates every request and answers with `steps`, and a real SDK client for it. */
export interface FakeAnthropic extends FakeServer {
  client(options?: { readonly apiKey?: string; readonly maxRetries?: number }): Anthropic;
}

/** Starts a fake Messages API server on 127.0.0.1 that answers valid requests with `steps`, in order. */
export async function startFakeAnthropic(steps: readonly FakeStep[]): Promise<FakeAnthropic> {
  const server = await startFakeServer({
    validate: checkMessagesRequest,
    refuse: (problems) => ({
      ...apiError(400, "invalid_request_error", problems.join("; ")),
      headers: { "x-should-retry": "false" },
    }),
    route: scriptedRoute(steps),
  });
  return Object.assign(server, {
    client: (options: { apiKey?: string; maxRetries?: number } = {}) =>
      new Anthropic({
        apiKey: options.apiKey ?? "sk-ant-test",
        baseURL: server.url,
        maxRetries: options.maxRetries ?? 2,
      }),
  });
}
