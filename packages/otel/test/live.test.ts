import { asks, final, ModelError, type ModelReply, scriptedModel, toolCall } from "@agentloop/core";
import { DEFAULT_SYSTEM } from "@agentloop/core/machine";
import { SpanKind } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { byStart, CLOCK, CONTENT_KEYS, inMemory, ms, only, shape, weather } from "./in-memory.js";

const withUsage = (reply: ModelReply, inputTokens: number, outputTokens: number): ModelReply => ({
  ...reply,
  usage: { inputTokens, outputTokens },
});
const pune = () =>
  scriptedModel([
    withUsage(asks(toolCall("c1", "get_weather", { city: "Pune" })), 50, 10),
    withUsage(final("It is 30 °C in Pune."), 80, 12),
  ]);

describe("a live run", () => {
  it("is one invoke_agent span with a chat span per model call and an execute_tool span per call under it", async () => {
    const { telemetry, spans } = inMemory({ agentName: "weather" });
    const result = await telemetry.runAgent("How hot is Pune?", pune(), weather(), { runId: "pune-1" });
    const run = {
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4.1",
      "gen_ai.conversation.id": "pune-1",
    };
    expect(shape(spans())).toEqual([
      {
        name: "invoke_agent weather",
        kind: SpanKind.INTERNAL,
        parent: null,
        attributes: {
          "gen_ai.operation.name": "invoke_agent",
          ...run,
          "gen_ai.agent.name": "weather",
          "agentloop.status": "done",
          "agentloop.steps": 2,
          "agentloop.tokens": result.tokens,
          "gen_ai.usage.input_tokens": 130,
          "gen_ai.usage.output_tokens": 22,
          "gen_ai.response.finish_reasons": ["stop"],
        },
        status: "unset",
        events: [],
      },
      {
        name: "chat gpt-4.1",
        kind: SpanKind.CLIENT,
        parent: "invoke_agent weather",
        attributes: {
          "gen_ai.operation.name": "chat",
          ...run,
          "agentloop.step": 1,
          "gen_ai.response.finish_reasons": ["tool_call"],
          "gen_ai.usage.input_tokens": 50,
          "gen_ai.usage.output_tokens": 10,
        },
        status: "unset",
        events: [],
      },
      {
        name: "execute_tool get_weather",
        kind: SpanKind.INTERNAL,
        parent: "invoke_agent weather",
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.conversation.id": "pune-1",
          "gen_ai.tool.name": "get_weather",
          "gen_ai.tool.call.id": "c1",
          "gen_ai.tool.type": "function",
          "gen_ai.tool.description": "Current temperature of one city in Celsius.",
        },
        status: "unset",
        events: [],
      },
      {
        name: "chat gpt-4.1",
        kind: SpanKind.CLIENT,
        parent: "invoke_agent weather",
        attributes: {
          "gen_ai.operation.name": "chat",
          ...run,
          "agentloop.step": 2,
          "gen_ai.response.finish_reasons": ["stop"],
          "gen_ai.usage.input_tokens": 80,
          "gen_ai.usage.output_tokens": 12,
        },
        status: "unset",
        events: [],
      },
    ]);
  });

  it("orders the spans as the run went: a model call, then its tool, then the next call, all within the turn", async () => {
    const { telemetry, spans } = inMemory();
    await telemetry.runAgent("How hot is Pune?", pune(), weather({ Pune: 20 }));
    const [root, first, tool, second] = byStart(spans());
    const times = (span: ReadableSpan | undefined) => [ms(span?.startTime ?? [0, 0]), ms(span?.endTime ?? [0, 0])];
    const [start = 0, end = 0] = times(root);
    expect(root?.name).toBe("invoke_agent");
    // The SDK anchors each span's clock to Date.now() at its start: spans agree to within a millisecond.
    expect(times(first)[1]).toBeLessThanOrEqual((times(tool)[0] ?? 0) + CLOCK);
    expect((times(tool)[1] ?? 0) - (times(tool)[0] ?? 0)).toBeGreaterThanOrEqual(15);
    expect(times(tool)[1]).toBeLessThanOrEqual((times(second)[0] ?? 0) + CLOCK);
    for (const span of [first, tool, second]) {
      expect(times(span)[0]).toBeGreaterThanOrEqual(start - CLOCK);
      expect(times(span)[1]).toBeLessThanOrEqual(end + CLOCK);
    }
  });

  it("gives a run without a runId a random one, the same on every span and in the store", async () => {
    const { MemoryEventStore } = await import("@agentloop/core");
    const { telemetry, spans } = inMemory();
    const store = new MemoryEventStore();
    const result = await telemetry.runAgent("How hot is Pune?", pune(), weather(), { store });
    expect(result.runId).toMatch(/^[0-9a-f-]{36}$/);
    const ids = new Set(spans().map((span) => span.attributes["gen_ai.conversation.id"]));
    expect([...ids]).toEqual([result.runId]);
    expect(await store.read(result.runId as string)).not.toEqual([]);
  });

  it("records no content unless asked", async () => {
    const { telemetry, spans } = inMemory();
    await telemetry.runAgent("How hot is Pune?", pune(), weather());
    for (const span of spans()) {
      for (const key of CONTENT_KEYS) expect(span.attributes, `${span.name} has ${key}`).not.toHaveProperty(key);
    }
    expect(spans()).toHaveLength(4);
  });

  it("records the prompt, each call's messages and reply, the tool's arguments and result, and the answer when asked", async () => {
    const { telemetry, spans } = inMemory({ captureContent: true });
    await telemetry.runAgent("How hot is Pune?", pune(), weather(), { system: "Be brief." });
    const root = only(spans(), "invoke_agent");
    expect(JSON.parse(String(root.attributes["gen_ai.system_instructions"]))).toEqual([
      { type: "text", content: "Be brief." },
    ]);
    expect(JSON.parse(String(root.attributes["gen_ai.input.messages"]))).toEqual([
      { role: "user", parts: [{ type: "text", content: "How hot is Pune?" }] },
    ]);
    expect(JSON.parse(String(root.attributes["gen_ai.output.messages"]))).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "It is 30 °C in Pune." }], finish_reason: "stop" },
    ]);
    const [first, second] = spans().filter((span) => span.name === "chat gpt-4.1");
    const call = { type: "tool_call", id: "c1", name: "get_weather", arguments: { city: "Pune" } };
    const shown = [
      { role: "system", parts: [{ type: "text", content: "Be brief." }] },
      { role: "user", parts: [{ type: "text", content: "How hot is Pune?" }] },
    ];
    expect(JSON.parse(String(first?.attributes["gen_ai.input.messages"]))).toEqual(shown);
    expect(JSON.parse(String(first?.attributes["gen_ai.output.messages"]))).toEqual([
      { role: "assistant", parts: [call], finish_reason: "tool_call" },
    ]);
    expect(JSON.parse(String(second?.attributes["gen_ai.input.messages"]))).toEqual([
      ...shown,
      { role: "assistant", parts: [call] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: '{"city":"Pune","celsius":30}' }] },
    ]);
    const tool = only(spans(), "execute_tool get_weather");
    expect(tool.attributes["gen_ai.tool.call.arguments"]).toBe('{"city":"Pune"}');
    expect(tool.attributes["gen_ai.tool.call.result"]).toBe('{"city":"Pune","celsius":30}');
  });

  it("records the default system prompt as the run's instructions", async () => {
    const { telemetry, spans } = inMemory({ captureContent: true });
    await telemetry.runAgent("Hi", scriptedModel([final("Hello.")]), weather());
    const root = only(spans(), "invoke_agent");
    expect(JSON.parse(String(root.attributes["gen_ai.system_instructions"]))).toEqual([
      { type: "text", content: DEFAULT_SYSTEM },
    ]);
  });

  it("marks a call whose observation is an ERROR: with the error status and error.type, its words only when asked", async () => {
    const script = () =>
      scriptedModel([
        asks(toolCall("a", "get_weather", { city: "Atlantis" }), toolCall("b", "get_time", {})),
        final("I could not find out."),
      ]);
    for (const captureContent of [false, true]) {
      const { telemetry, spans } = inMemory({ captureContent });
      const result = await telemetry.runAgent("Weather in Atlantis?", script(), weather());
      expect(result.status).toBe("done");
      const failed = only(spans(), "execute_tool get_weather");
      expect(failed.attributes["error.type"]).toBe("tool_error");
      expect(failed.status).toEqual(
        captureContent ? { code: 2, message: "ERROR: get_weather failed: Error: no such city: Atlantis" } : { code: 2 },
      );
      expect(failed.attributes).not.toHaveProperty("gen_ai.tool.call.result");
      const unknown = only(spans(), "execute_tool get_time");
      expect(unknown.attributes["error.type"]).toBe("tool_error");
      expect(only(spans(), "invoke_agent").status).toEqual({ code: 0 });
    }
  });
});

describe("a failing model", () => {
  class RateLimitError extends Error {
    override readonly name = "RateLimitError";
  }

  it("ends its chat span with the model's error and the turn's with the ModelError the run rejects with", async () => {
    const { telemetry, spans } = inMemory();
    let calls = 0;
    const model = () => {
      calls += 1;
      if (calls === 2) throw new RateLimitError("429 slow down");
      return asks(toolCall("c1", "get_weather", { city: "Pune" }));
    };
    const run = telemetry.runAgent("How hot is Pune?", model, weather());
    await expect(run).rejects.toBeInstanceOf(ModelError);
    const chats = spans().filter((span) => span.name === "chat gpt-4.1");
    expect(chats.map((span) => span.status.code)).toEqual([0, 2]);
    const failed = chats[1];
    expect(failed?.attributes["error.type"]).toBe("RateLimitError");
    expect(failed?.status.message).toBe("429 slow down");
    expect(failed?.events.map((event) => event.name)).toEqual(["exception"]);
    const root = only(spans(), "invoke_agent");
    expect(root.attributes["error.type"]).toBe("ModelError");
    expect(root.status.code).toBe(2);
    expect(root.attributes).not.toHaveProperty("agentloop.status");
    expect(only(spans(), "execute_tool get_weather").status.code).toBe(0);
  });

  it("ends the chat span with the ModelError when the model returns something that is not a reply", async () => {
    const { telemetry, spans } = inMemory();
    const model = () => 42 as unknown as ModelReply;
    await expect(telemetry.runAgent("Hi", model, weather())).rejects.toBeInstanceOf(ModelError);
    const chat = only(spans(), "chat gpt-4.1");
    expect(chat.attributes["error.type"]).toBe("ModelError");
    expect(chat.status.code).toBe(2);
    expect(only(spans(), "invoke_agent").status.code).toBe(2);
  });

  it("reads a reply once, as the run does without tracing", async () => {
    const { telemetry } = inMemory();
    let reads = 0;
    const reply = {
      toolCalls: [],
      get content() {
        reads += 1;
        return "Hello.";
      },
    };
    const result = await telemetry.runAgent("Hi", () => reply, weather());
    expect(result.answer).toBe("Hello.");
    expect(reads).toBe(1);
  });

  it("ends the turn's span with the error of a run refused before it starts", async () => {
    const { telemetry, spans } = inMemory();
    await expect(telemetry.runAgent("Hi", pune(), weather(), { maxSteps: -1 })).rejects.toBeInstanceOf(RangeError);
    const root = only(spans(), "invoke_agent");
    expect(root.attributes["error.type"]).toBe("RangeError");
    expect(spans()).toHaveLength(1);
  });
});
