import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  asks,
  final,
  MemoryEventStore,
  type Model,
  type ModelReply,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { openaiModel } from "@agentloop/openai";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { inMemory, only, trees, weather } from "./in-memory.js";

const MAX_TOKENS = "gen_ai.request.max_tokens";
const FINISH = "gen_ai.response.finish_reasons";
const STREAM = "gen_ai.request.stream";
const FIRST_CHUNK = "gen_ai.response.time_to_first_chunk";

/** A scripted model that says its reply limit, as the adapters do. */
function limited(replies: readonly ModelReply[], maxReplyTokens = 1024) {
  return Object.assign(scriptedModel(replies), { maxReplyTokens });
}
const pune = () => [asks(toolCall("c1", "get_weather", { city: "Pune" })), final("It is 30 °C in Pune.")];

describe("recommended GenAI attributes", () => {
  it("invoke_agent and chat carry the model's reply limit; invoke_agent the finish reason of its last reply", async () => {
    const { telemetry, spans } = inMemory();
    await telemetry.runAgent("How hot is Pune?", limited(pune()), weather(), { runId: "r1" });
    const agent = only(spans(), "invoke_agent").attributes;
    expect(agent).toMatchObject({ [MAX_TOKENS]: 1024, [FINISH]: ["stop"] });
    const chats = spans().filter((span) => span.name === "chat gpt-4.1");
    expect(chats.map((span) => [span.attributes[MAX_TOKENS], span.attributes[FINISH]])).toEqual([
      [1024, ["tool_call"]],
      [1024, ["stop"]],
    ]);
    // Not streamed: nobody listened, so the model was not asked to.
    for (const span of spans()) expect(span.attributes).not.toHaveProperty(STREAM);
  });

  it("a turn that stops on a limit or a cut reply says so in its finish reasons", async () => {
    const { telemetry, spans, reset } = inMemory();
    await telemetry.runAgent("How hot is Pune?", limited(pune()), weather(), { maxSteps: 1 });
    expect(only(spans(), "invoke_agent").attributes[FINISH]).toEqual(["tool_call"]);
    reset();
    const cut: ModelReply = { ...final("It is 30"), finishReason: "length" };
    await telemetry.runAgent("How hot is Pune?", limited([cut]), weather());
    expect(only(spans(), "invoke_agent").attributes[FINISH]).toEqual(["length"]);
  });

  it("a model that says no limit gives none, unless the telemetry is told one", async () => {
    const bare = inMemory();
    await bare.telemetry.runAgent("How hot is Pune?", scriptedModel(pune()), weather());
    for (const span of bare.spans()) expect(span.attributes).not.toHaveProperty(MAX_TOKENS);
    const told = inMemory({ maxTokens: 2048 });
    await told.telemetry.runAgent("How hot is Pune?", scriptedModel(pune()), weather());
    await told.telemetry.runAgent("How hot is Pune?", limited(pune(), 512), weather());
    const agents = told.spans().filter((span) => span.name === "invoke_agent");
    expect(agents.map((span) => span.attributes[MAX_TOKENS])).toEqual([2048, 512]);
  });

  it("a streamed model call has gen_ai.request.stream and the time to its first chunk; one asked that does not stream has neither", async () => {
    const { telemetry, spans, reset } = inMemory();
    const onEvent = () => {};
    await telemetry.runAgent("How hot is Pune?", scriptedModel(pune()), weather(), { onEvent });
    const chats = spans().filter((span) => span.name === "chat gpt-4.1");
    expect(chats).toHaveLength(2);
    for (const { attributes } of chats) {
      expect(attributes[STREAM]).toBe(true);
      expect(attributes[FIRST_CHUNK]).toBeGreaterThanOrEqual(0);
      expect(attributes[FIRST_CHUNK]).toBeLessThan(5);
    }
    reset();
    const silent: Model = () => final("Hot.");
    await telemetry.runAgent("How hot is Pune?", silent, weather(), { onEvent });
    const chat = only(spans(), "chat gpt-4.1").attributes;
    expect(chat).not.toHaveProperty(STREAM);
    expect(chat).not.toHaveProperty(FIRST_CHUNK);
  });

  it("from a log: the finish reasons and the telemetry's reply limit, in the live run's tree", async () => {
    const { telemetry, spans, reset } = inMemory({ maxTokens: 1024 });
    const store = new MemoryEventStore();
    await telemetry.runAgent("How hot is Pune?", limited(pune()), weather(), { store, runId: "log-1" });
    const live = trees(spans());
    reset();
    telemetry.spansFromLog("log-1", await store.read("log-1"));
    expect(only(spans(), "invoke_agent").attributes).toMatchObject({ [MAX_TOKENS]: 1024, [FINISH]: ["stop"] });
    expect(trees(spans())).toEqual(live);
  });
});

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

/** A Chat Completions server on 127.0.0.1 that streams one answer, chunk by chunk, as OpenAI does. */
async function streamingServer(): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const chunk = (choices: unknown[], extra = {}) =>
    `data: ${JSON.stringify({ id: "chatcmpl-2", object: "chat.completion.chunk", created: 1_790_000_000, model: "gpt-4.1-mini-2025-04-14", choices, ...extra })}\n\n`;
  server = createServer((request, response) => {
    let text = "";
    request.on("data", (piece) => {
      text += piece;
    });
    request.on("end", () => {
      bodies.push(JSON.parse(text));
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(chunk([{ index: 0, delta: { role: "assistant", content: "Hot " }, finish_reason: null }]));
      response.write(chunk([{ index: 0, delta: { content: "in Pune." }, finish_reason: null }]));
      response.write(chunk([{ index: 0, delta: {}, finish_reason: "stop" }]));
      response.write(chunk([], { usage: { prompt_tokens: 40, completion_tokens: 4, total_tokens: 44 } }));
      response.end("data: [DONE]\n\n");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies };
}

it("traces a streamed call on the OpenAI adapter: stream, first chunk, the reply limit it sent", async () => {
  const { url, bodies } = await streamingServer();
  const client = new OpenAI({ baseURL: url, apiKey: "test", maxRetries: 0 });
  const model = openaiModel({ client, model: "gpt-4.1-mini", maxTokens: 300 });
  const { telemetry, spans } = inMemory({ model: "gpt-4.1-mini" });
  const stream = telemetry.streamAgent("How hot is Pune?", model, new ToolRegistry());
  expect((await stream.result).answer).toBe("Hot in Pune.");
  expect(bodies).toEqual([expect.objectContaining({ stream: true, max_completion_tokens: 300 })]);
  expect(only(spans(), "chat gpt-4.1-mini").attributes).toMatchObject({
    [STREAM]: true,
    [MAX_TOKENS]: 300,
    [FINISH]: ["stop"],
    "gen_ai.usage.input_tokens": 40,
  });
  expect(only(spans(), "invoke_agent").attributes).toMatchObject({ [MAX_TOKENS]: 300, [FINISH]: ["stop"] });
});
