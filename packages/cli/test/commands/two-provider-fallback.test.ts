import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { askWithFallback } from "../../examples/two-provider-fallback.js";
import { type FailedAnswer, RATE_LIMITED } from "../openai-answer-server.js";

const sse = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
const usage = { input_tokens: 14, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

/**
 * A streamed Messages API answer, its events laid out as recorded from claude-sonnet-4-5 (see
 * packages/anthropic/test/fixtures/streams.ts): a text block in two deltas with a ping, then the
 * message's stop reason and usage; only the text is ours.
 */
const claudeStream = [
  sse({
    type: "message_start",
    message: {
      id: "msg_01DfGoUwMtftE8VM22axQ2Jc",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  }),
  sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  sse({ type: "ping" }),
  sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "The capital of France" } }),
  sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: " is Paris." } }),
  sse({ type: "content_block_stop", index: 0 }),
  sse({
    type: "message_delta",
    delta: { stop_reason: "end_turn", stop_sequence: null, stop_details: null },
    usage: { ...usage, output_tokens: 10 },
  }),
  sse({ type: "message_stop" }),
].join("");

const claudeAnswer: Answer = {
  status: 200,
  headers: { "content-type": "text/event-stream", "request-id": "req_011CbdvxTUYTphAK4edPcwBx" },
  body: claudeStream,
};

/** An answer to one request: its status, headers, and its body (JSON, or text sent as it is). */
type Answer =
  | FailedAnswer
  | { readonly status: number; readonly headers: Record<string, string>; readonly body: string };

/** A server on 127.0.0.1 that answers its requests with `answers`, one each, in order; it records each request's path and body. */
async function serve(answers: readonly Answer[]) {
  const requests: { path: string; body: Record<string, unknown> }[] = [];
  const server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on("end", () => {
      requests.push({ path: request.url ?? "", body: JSON.parse(text) as Record<string, unknown> });
      const answer = answers[requests.length - 1] ?? { status: 500, headers: {}, body: { error: "no more answers" } };
      response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      response.end(typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => server.close() };
}

describe("examples/two-provider-fallback.ts, offline", () => {
  it("OpenAI answers 429 on every attempt, waited out as it asks; then Claude answers, and the log says so", async () => {
    const openaiServer = await serve([RATE_LIMITED, RATE_LIMITED, RATE_LIMITED]);
    const anthropicServer = await serve([claudeAnswer]);
    const printed: string[] = [];
    try {
      const { result, answeredBy } = await askWithFallback(
        new OpenAI({ apiKey: "test-key", baseURL: `${openaiServer.url}/v1` }),
        new Anthropic({ apiKey: "test-key", baseURL: anthropicServer.url }),
        (line) => printed.push(line),
      );
      expect(result).toMatchObject({ status: "done", answer: "The capital of France is Paris.", steps: 1 });
      expect(answeredBy).toBe(1);
      // One request per attempt: 1 + 2 retries on OpenAI, then one on Claude; no SDK retries on top.
      expect(openaiServer.requests.map((request) => request.path)).toEqual(Array(3).fill("/v1/chat/completions"));
      expect(anthropicServer.requests.map((request) => request.path)).toEqual(["/v1/messages"]);
      expect(anthropicServer.requests[0]?.body).toMatchObject({
        model: "claude-sonnet-4-5",
        // The prompt-cache marks are on by default: the conversation's last block carries one.
        messages: [
          {
            role: "user",
            content: [{ type: "text", text: "What is the capital of France?", cache_control: { type: "ephemeral" } }],
          },
        ],
        stream: true,
      });
      // The provider's retry-after-ms (1) wins over the 1 s backoff.
      expect(printed).toEqual([
        expect.stringMatching(/^model 0 failed: .*429 Rate limit reached for gpt-4\.1-mini/),
        "waiting 1 ms",
        expect.stringMatching(/^model 0 failed: .*429/),
        "waiting 1 ms",
        expect.stringMatching(/^model 0 failed: .*429/),
      ]);
    } finally {
      openaiServer.close();
      anthropicServer.close();
    }
  });
});
