import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { MemoryEventStore, ModelError } from "@agentloop/core";
import { openaiModel } from "@agentloop/openai";
import OpenAI from "openai";
import { afterEach, expect, it } from "vitest";
import { inMemory, only, trees, weather } from "./in-memory.js";

let server: Server | undefined;
afterEach(() => {
  server?.close();
});

/** A Chat Completions server on 127.0.0.1 that answers with `answers`, one per request, in order. */
async function serve(answers: { status: number; body: unknown }[]): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const { status, body } = answers.shift() ?? { status: 500, body: { error: { message: "no more answers" } } };
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const toolCallCompletion = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1_790_000_000,
  model: "gpt-4.1-mini-2025-04-14",
  choices: [
    {
      index: 0,
      finish_reason: "tool_calls",
      logprobs: null,
      message: {
        role: "assistant",
        content: null,
        refusal: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Pune"}' } },
        ],
      },
    },
  ],
  usage: { prompt_tokens: 120, completion_tokens: 18, total_tokens: 138 },
};
const rateLimited = { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } };

it("traces a run on the OpenAI adapter: the provider's usage, and its rate-limit error on the chat span", async () => {
  const baseURL = await serve([
    { status: 200, body: toolCallCompletion },
    { status: 429, body: rateLimited },
  ]);
  const client = new OpenAI({ baseURL, apiKey: "test", maxRetries: 0 });
  const model = openaiModel({ client, model: "gpt-4.1-mini", maxTokens: 256 });
  const { telemetry, spans } = inMemory({ provider: "openai", model: "gpt-4.1-mini" });
  await expect(telemetry.runAgent("How hot is Pune?", model, weather())).rejects.toBeInstanceOf(ModelError);
  const [first, second] = spans().filter((span) => span.name === "chat gpt-4.1-mini");
  expect(first?.attributes).toMatchObject({
    "gen_ai.usage.input_tokens": 120,
    "gen_ai.usage.output_tokens": 18,
    "gen_ai.response.finish_reasons": ["tool_call"],
    "gen_ai.request.max_tokens": 256,
  });
  expect(first?.attributes).not.toHaveProperty("gen_ai.request.stream");
  expect(second?.attributes["error.type"]).toBe("RateLimitError");
  expect(second?.status.code).toBe(2);
  expect(only(spans(), "execute_tool get_weather").attributes["gen_ai.tool.call.id"]).toBe("call_1");
  expect(only(spans(), "invoke_agent").attributes).toMatchObject({
    "error.type": "ModelError",
    "gen_ai.request.max_tokens": 256,
    "gen_ai.response.finish_reasons": ["tool_call"],
  });
});

it("names the OpenAI SDK's RateLimitError (whose name is the plain Error) alike live and from the run's log", async () => {
  const answer = {
    ...toolCallCompletion,
    choices: [
      {
        ...toolCallCompletion.choices[0],
        finish_reason: "stop",
        message: { role: "assistant", content: "It is 30 C.", refusal: null },
      },
    ],
  };
  const baseURL = await serve([
    { status: 429, body: rateLimited },
    { status: 200, body: answer },
  ]);
  const client = new OpenAI({ baseURL, apiKey: "test", maxRetries: 0 });
  const model = openaiModel({ client, model: "gpt-4.1-mini" });
  const { telemetry, spans, reset } = inMemory({ provider: "openai", model: "gpt-4.1-mini" });
  const store = new MemoryEventStore();
  const options = { store, runId: "limited", retry: { attempts: 1, initialDelayMs: 1 } };
  await expect(telemetry.runAgent("How hot is Pune?", model, weather(), options)).resolves.toMatchObject({
    status: "done",
  });
  const failed = spans().find((span) => span.name === "chat gpt-4.1-mini" && span.status.code === 2);
  expect(failed?.attributes["error.type"]).toBe("RateLimitError");
  const live = trees(spans());
  reset();
  telemetry.spansFromLog("limited", await store.read("limited"));
  expect(trees(spans())).toEqual(live);
});
