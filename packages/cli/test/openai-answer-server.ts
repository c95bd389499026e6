import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** An OpenAI-compatible server on 127.0.0.1 whose every Chat Completions reply is `answer`. */
export interface AnswerServer {
  /** The base URL to give as `OPENAI_BASE_URL`. */
  readonly baseUrl: string;
  /** How many requests came. */
  readonly count: () => number;
  close(): void;
}

/** An error answer as the API sends it: its status, headers and JSON body. */
export interface FailedAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: object;
}

/**
 * OpenAI's 429 for a per-minute rate limit, as the API sends it (type "tokens", code
 * "rate_limit_exceeded"), with `retry-after-ms: 1` (honoured by the SDK and the adapter) so that
 * the wait stays short.
 */
export const RATE_LIMITED: FailedAnswer = {
  status: 429,
  headers: { "retry-after-ms": "1", "x-ratelimit-remaining-tokens": "0", "x-request-id": "req_error" },
  body: {
    error: {
      message:
        "Rate limit reached for gpt-4.1-mini in organization org-test on tokens per min (TPM): Limit 200000, Used 199845, Requested 1018. Please try again in 1ms. Visit https://platform.openai.com/account/rate-limits to learn more.",
      type: "tokens",
      param: null,
      code: "rate_limit_exceeded",
    },
  },
};

/**
 * Starts a server that answers `POST /v1/chat/completions` with a final text reply, as the real
 * API sends one: an SSE stream of chunks (usage in the last) when the request asks for a stream,
 * else one `chat.completion` object. The first requests get `failures`, one each, in order.
 */
export async function startAnswerServer(answer: string, failures: readonly FailedAnswer[] = []): Promise<AnswerServer> {
  let requests = 0;
  const server: Server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on("end", () => {
      requests += 1;
      const failure = failures[requests - 1];
      if (failure !== undefined) {
        response.writeHead(failure.status, { "content-type": "application/json", ...failure.headers });
        response.end(JSON.stringify(failure.body));
        return;
      }
      const head = { id: `chatcmpl-${requests}`, created: 1_764_672_000, model: "gpt-4o-mini" };
      const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
      const status = request.url === "/v1/chat/completions" ? 200 : 404;
      if ((JSON.parse(text) as { stream?: boolean }).stream === true) {
        const chunk = (body: object) =>
          `data: ${JSON.stringify({ ...head, object: "chat.completion.chunk", ...body })}\n\n`;
        response.writeHead(status, { "content-type": "text/event-stream" });
        response.end(
          chunk({ choices: [{ index: 0, delta: { role: "assistant", content: answer }, finish_reason: null }] }) +
            chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) +
            chunk({ choices: [], usage }) +
            "data: [DONE]\n\n",
        );
        return;
      }
      const message = { role: "assistant", content: answer };
      response.writeHead(status, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          ...head,
          object: "chat.completion",
          choices: [{ index: 0, message, finish_reason: "stop", logprobs: null }],
          usage,
        }),
      );
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, count: () => requests, close: () => server.close() };
}
