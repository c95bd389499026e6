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
import { failures } from "./fixtures/errors.js";
import { messageEvents } from "./message-events.js";
import { checkThinking, IssuedThinking } from "./thinking-rules.js";

export { failures };

/** One content block of a scripted reply: text, thinking, redacted thinking, or a tool use whose `id` may be left out on purpose. */
export type WireBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }
  | { readonly type: "redacted_thinking"; readonly data: string }
  | { readonly type: "tool_use"; readonly id?: string; readonly name: string; readonly input: unknown };

/** What one scripted message carries; `usage: null` leaves the usage out, as a minimal compatible server might. */
export interface WireReply {
  readonly content: readonly WireBlock[];
  readonly stopReason?: "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal" | "pause_turn";
  readonly stopDetails?: Record<string, unknown>;
  readonly usage?: {
    readonly input: number;
    readonly output: number;
    /** Prompt tokens read from the cache and written to it (default 0). */
    readonly cacheRead?: number;
    readonly cacheWrite?: number;
  } | null;
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
        block.type === "text"
          ? { ...block, citations: null }
          : block.type === "tool_use"
            ? { ...block, caller: { type: "direct" } }
            : block,
      ),
      stop_reason: reply.stopReason ?? (hasToolUse ? "tool_use" : "end_turn"),
      stop_sequence: null,
      stop_details: reply.stopDetails ?? null,
      container: null,
      ...(usage === null
        ? {}
        : {
            usage: {
              input_tokens: usage.input,
              output_tokens: usage.output,
              cache_creation_input_tokens: usage.cacheWrite ?? 0,
              cache_read_input_tokens: usage.cacheRead ?? 0,
              cache_creation: { ephemeral_5m_input_tokens: usage.cacheWrite ?? 0, ephemeral_1h_input_tokens: 0 },
              server_tool_use: null,
              service_tier: "standard",
            },
          }),
    },
  };
}

/** The message that carries a core `ModelReply`: reasoning first as thinking blocks; without usage on the reply, the body has none, so that the core's estimate counts. */
export function messageOf(reply: ModelReply): FakeResponse {
  return message({
    content: [
      ...(reply.reasoning ?? []).map(
        (part): WireBlock =>
          part.type === "redacted-reasoning"
            ? { type: "redacted_thinking", data: part.data }
            : { type: "thinking", thinking: part.text, signature: part.signature ?? "" },
      ),
      ...(reply.content === "" ? [] : [{ type: "text" as const, text: reply.content }]),
      ...reply.toolCalls.map((call) => ({ type: "tool_use" as const, id: call.id, name: call.name, input: call.args })),
    ],
    usage: reply.usage === undefined ? null : wireUsage(reply.usage),
  });
}

/** A core usage as the API reports it: `input_tokens` without the cache reads and writes, which come apart. */
function wireUsage(usage: NonNullable<ModelReply["usage"]>): NonNullable<WireReply["usage"]> {
  const cacheRead = usage.cachedInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return { input: usage.inputTokens - cacheRead - cacheWrite, output: usage.outputTokens, cacheRead, cacheWrite };
}

/** A fake Anthropic server that validates every request and answers with `steps`, and a real SDK client for it. */
export interface FakeAnthropic extends FakeServer {
  client(options?: { readonly apiKey?: string; readonly maxRetries?: number }): Anthropic;
}

/**
 * Starts a fake Messages API server on 127.0.0.1 that answers valid requests with `steps`, in
 * order. A 200 message answers a streaming request as the events it adds up to (see
 * `messageEvents`); requests that break the wire format or the thinking rules get the API's 400.
 */
export async function startFakeAnthropic(steps: readonly FakeStep[]): Promise<FakeAnthropic> {
  const issued = new IssuedThinking();
  const scripted = scriptedRoute(steps);
  const server = await startFakeServer({
    validate: (request) => [...checkMessagesRequest(request), ...checkThinking(request, issued)],
    refuse: (problems) => ({
      status: 400,
      headers: { "request-id": "req_error", "x-should-retry": "false" },
      body: {
        type: "error",
        error: { type: "invalid_request_error", message: problems.join("; ") },
        request_id: "req_error",
      },
    }),
    route: async (request, index) => {
      const answer = await scripted(request, index);
      if (!("body" in answer) || answer.status !== 200) return answer;
      issued.remember(answer.body);
      return (request.body as { stream?: unknown } | undefined)?.stream === true
        ? messageEvents(answer.body, answer.headers)
        : answer;
    },
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
