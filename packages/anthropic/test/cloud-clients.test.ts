import { MemoryEventStore, runAgent } from "@agentloop/core";
import { makeWeatherRegistry, WEATHER_TASK } from "@agentloop/provider-testkit";
import { AnthropicBedrock } from "@anthropic-ai/bedrock-sdk";
import { AnthropicVertex } from "@anthropic-ai/vertex-sdk";
import { describe, expect, it } from "vitest";
import { anthropicModel } from "../src/index.js";
import { thinkingToolUse } from "./fixtures/messages.js";
import { messageEvents } from "./message-events.js";

const ANSWER = {
  ...thinkingToolUse,
  id: "msg_01Answer",
  content: [{ type: "text", text: "It is 86 F in Pune." }],
  stop_reason: "end_turn",
};

interface Sent {
  readonly url: URL;
  readonly body: Record<string, unknown>;
}

/**
 * A `fetch` for the SDK clients' `fetch` option: answers each request with the next body (as the
 * Messages API's event stream when the request streams), or with a failure, and keeps what was sent.
 */
interface Failure {
  readonly status: number;
  readonly headers: Record<string, string>;
}

function isFailure(answer: object): answer is Failure {
  return "status" in answer && typeof answer.status === "number";
}

function cloudFetch(answers: readonly (object | Failure)[]) {
  const sent: Sent[] = [];
  const queue = [...answers];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    sent.push({ url, body });
    const answer = queue.shift() ?? {};
    if (isFailure(answer)) {
      const error = { type: "error", error: { type: "rate_limit_error", message: "Too many requests" } };
      return new Response(JSON.stringify(error), { status: answer.status, headers: answer.headers });
    }
    const streamed = body.stream === true || url.pathname.endsWith(":streamRawPredict");
    if (!streamed) return new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } });
    const events = messageEvents(answer).events.map((event) => `event: ${event.event}\ndata: ${event.data}\n\n`);
    return new Response(events.join(""), { headers: { "content-type": "text/event-stream" } });
  };
  return { fetch: fetch as typeof globalThis.fetch, sent };
}

function assistantOf(body: Record<string, unknown> | undefined) {
  const messages = (body?.messages ?? []) as { role: string; content: unknown }[];
  return messages.find((message) => message.role === "assistant");
}

/** Google credentials as a service account would give them, without the metadata server. */
const authClient = {
  projectId: "weather-project",
  getRequestHeaders: async () => new Headers({ authorization: "Bearer test-access-token" }),
} as unknown as NonNullable<ConstructorParameters<typeof AnthropicVertex>[0]>["authClient"];

const SIGNED = { type: "thinking", signature: thinkingToolUse.content[0]?.signature };

describe("anthropicModel on Claude in other clouds", () => {
  it("AnthropicBedrock (@anthropic-ai/bedrock-sdk): the model in the path, thinking sent back signed", async () => {
    const fake = cloudFetch([thinkingToolUse, ANSWER]);
    const client = new AnthropicBedrock({ awsRegion: "us-east-1", apiKey: "test-bearer-token", fetch: fake.fetch });
    const model = anthropicModel({
      client,
      model: "us.anthropic.claude-sonnet-4-6",
      maxTokens: 2048,
      thinking: { type: "enabled", budget_tokens: 1024 },
    });
    const result = await runAgent(WEATHER_TASK, model, makeWeatherRegistry().registry);
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", steps: 2 });
    expect(fake.sent.map((request) => request.url.pathname)).toEqual(
      Array(2).fill(`/model/${encodeURIComponent("us.anthropic.claude-sonnet-4-6")}/invoke`),
    );
    expect(fake.sent[0]?.body).not.toHaveProperty("model");
    expect(assistantOf(fake.sent[1]?.body)?.content).toMatchObject([SIGNED, { type: "tool_use", name: "get_weather" }]);
  });

  for (const streamed of [false, true]) {
    it(`AnthropicVertex (@anthropic-ai/vertex-sdk): rawPredict${streamed ? " streamed" : ""}, thinking sent back signed`, async () => {
      const fake = cloudFetch([thinkingToolUse, ANSWER]);
      const client = new AnthropicVertex({
        region: "us-east5",
        projectId: "weather-project",
        authClient,
        fetch: fake.fetch,
      });
      const model = anthropicModel({
        client,
        model: "claude-sonnet-4-6",
        maxTokens: 2048,
        thinking: { type: "enabled", budget_tokens: 1024 },
      });
      const result = await runAgent(
        WEATHER_TASK,
        model,
        makeWeatherRegistry().registry,
        streamed ? { onEvent: () => {} } : {},
      );
      expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", steps: 2 });
      const verb = streamed ? "streamRawPredict" : "rawPredict";
      expect(fake.sent[0]?.url.pathname).toBe(
        `/v1/projects/weather-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-6:${verb}`,
      );
      expect(fake.sent[0]?.body).not.toHaveProperty("model");
      expect(assistantOf(fake.sent[1]?.body)?.content).toMatchObject([
        SIGNED,
        { type: "tool_use", name: "get_weather" },
      ]);
    });
  }

  it("a 429 from Vertex is retryable with its retry-after, as from the Anthropic API", async () => {
    const fake = cloudFetch([{ status: 429, headers: { "retry-after": "0" } }, ANSWER]);
    const client = new AnthropicVertex({ region: "us-east5", projectId: "p", authClient, fetch: fake.fetch });
    const store = new MemoryEventStore();
    const result = await runAgent(
      WEATHER_TASK,
      anthropicModel({ client, model: "claude-sonnet-4-6", maxTokens: 512 }),
      makeWeatherRegistry().registry,
      {
        store,
        runId: "v",
        retry: { attempts: 1, initialDelayMs: 1 },
      },
    );
    expect(result.answer).toBe("It is 86 F in Pune.");
    const failed = (await store.read("v")).flatMap((event) => (event.type === "model.failed" ? [event] : []));
    expect(failed.map(({ retryable, retryAfterMs }) => ({ retryable, retryAfterMs }))).toEqual([
      { retryable: true, retryAfterMs: 0 },
    ]);
  });
});
