import type { AgentStreamEvent } from "@agentloop/core";
import {
  agentTool,
  type Guardrail,
  jsonSchema,
  MemoryEventStore,
  type Model,
  ModelError,
  resumeAgent,
  streamAgent,
  ToolRegistry,
} from "@agentloop/core";
import {
  asks,
  final,
  makeWeatherRegistry,
  scriptedModel,
  toolCall,
  WEATHER_TASK,
  weatherScript,
} from "@agentloop/core/testing";
import { describe, expect, it } from "vitest";
import { chunksOf, messageOf, partsOf } from "./read.js";

// Every run shape, read by the `ai` package's own parser into the message a page would hold.

function listened(
  start: (onEvent: (event: AgentStreamEvent) => void) => Promise<unknown>,
): AsyncIterable<AgentStreamEvent> {
  const events: AgentStreamEvent[] = [];
  const done = start((event) => events.push(event));
  return (async function* () {
    await done;
    yield* events;
  })();
}

describe("toUIMessageStream read by readUIMessageStream", () => {
  it("a run with tools: each step's text and tool parts with their outputs, in order, and the run's metadata", async () => {
    const { registry } = makeWeatherRegistry();
    const chunks = await chunksOf(streamAgent(WEATHER_TASK, scriptedModel(weatherScript()), registry));
    expect(chunks.filter((c) => c.type === "start-step")).toHaveLength(3);
    expect(chunks.filter((c) => c.type === "finish-step")).toHaveLength(3);
    const message = await messageOf(chunks);
    expect(message.role).toBe("assistant");
    expect(partsOf(message)).toMatchObject([
      { type: "text", text: "I will look up Pune first.", state: "done" },
      {
        type: "tool-get_weather",
        toolCallId: "c1",
        state: "output-available",
        input: { city: "Pune" },
        output: { city: "Pune", celsius: 30 },
      },
      { type: "tool-c_to_f", toolCallId: "c2", state: "output-available", input: { celsius: 30 }, output: 86 },
      { type: "text", text: "It is 86 F in Pune.", state: "done" },
    ]);
    expect(message.metadata).toEqual({ status: "done" });
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
  });

  it("reasoning comes before the text as its own part, streamed or given whole in the reply", async () => {
    const reply = {
      content: "Pune is warm.",
      toolCalls: [],
      reasoning: [{ type: "reasoning" as const, text: "The user asks about Pune." }],
    };
    const streamed = await chunksOf(streamAgent("Pune?", scriptedModel([reply]), new ToolRegistry()));
    const whole: Model = () => reply;
    for (const chunks of [streamed, await chunksOf(streamAgent("Pune?", whole, new ToolRegistry()))]) {
      expect(partsOf(await messageOf(chunks))).toMatchObject([
        { type: "reasoning", text: "The user asks about Pune.", state: "done" },
        { type: "text", text: "Pune is warm.", state: "done" },
      ]);
    }
  });

  it("tools in parallel: both calls of one reply are parts of the same step, each with its own output", async () => {
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel([
      asks(toolCall("a", "get_weather", { city: "Pune" }), toolCall("b", "get_weather", { city: "Delhi" })),
      final("Pune 30, Delhi 35."),
    ]);
    const message = await messageOf(await chunksOf(streamAgent("Both?", model, registry)));
    const step = message.parts.findIndex((part) => part.type === "step-start");
    expect(message.parts.slice(step + 1, step + 3)).toMatchObject([
      { toolCallId: "a", state: "output-available", output: { celsius: 30 } },
      { toolCallId: "b", state: "output-available", output: { celsius: 35 } },
    ]);
  });

  it("a tool error is a part in output-error with the error text", async () => {
    const { registry } = makeWeatherRegistry();
    const model = scriptedModel([asks(toolCall("a", "get_weather", { city: "Oslo" })), final("No data.")]);
    const message = await messageOf(await chunksOf(streamAgent("Oslo?", model, registry)));
    expect(partsOf(message)[0]).toMatchObject({ toolCallId: "a", state: "output-error" });
    expect(JSON.stringify(partsOf(message)[0])).toContain("unknown city");
  });

  it("an approval pause is a tool part in approval-requested; the resumed run's stream continues the same message to the answer", async () => {
    const store = new MemoryEventStore();
    const { registry } = makeWeatherRegistry();
    const guarded = new ToolRegistry();
    guarded.register(
      "get_weather",
      "Weather.",
      { type: "object", properties: { city: { type: "string" } } },
      () => ({ celsius: 30 }),
      {
        needsApproval: true,
      },
    );
    void registry;
    const model = scriptedModel([asks(toolCall("w1", "get_weather", { city: "Pune" })), final("30 C.")]);
    const first = streamAgent("Pune?", model, guarded, { store, runId: "chat-1" });
    const paused = await messageOf(await chunksOf(first));
    expect(partsOf(paused)).toMatchObject([
      { type: "tool-get_weather", toolCallId: "w1", state: "approval-requested", approval: { id: "w1" } },
    ]);
    expect(paused.metadata).toMatchObject({ status: "awaiting_approval", runId: "chat-1" });
    const events = listened((onEvent) =>
      resumeAgent("chat-1", model, guarded, { store, decisions: { w1: { approved: true } }, onEvent }),
    );
    const resumed = await messageOf(await chunksOf(events), paused);
    expect(partsOf(resumed)).toMatchObject([
      { toolCallId: "w1", state: "output-available", approval: { id: "w1", approved: true }, output: { celsius: 30 } },
      { type: "text", text: "30 C." },
    ]);
  });

  it("a refused call ends in output-denied with the reason", async () => {
    const store = new MemoryEventStore();
    const guarded = new ToolRegistry();
    guarded.register("send", "Send.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
    const model = scriptedModel([asks(toolCall("s1", "send")), final("Not sent.")]);
    const paused = await messageOf(await chunksOf(streamAgent("Send it", model, guarded, { store, runId: "r" })));
    const events = listened((onEvent) =>
      resumeAgent("r", model, guarded, { store, decisions: { s1: { approved: false, reason: "no" } }, onEvent }),
    );
    const resumed = await messageOf(await chunksOf(events), paused);
    expect(partsOf(resumed)[0]).toMatchObject({
      toolCallId: "s1",
      state: "output-denied",
      approval: { approved: false, reason: "no" },
    });
  });

  it("a retried step is shown once: the failed attempt's streamed text is dropped by reset-step", async () => {
    const { registry } = makeWeatherRegistry();
    const script = scriptedModel(weatherScript());
    let calls = 0;
    const model: Model = async (messages, tools, options) => {
      calls++;
      if (calls === 2) {
        options?.onDelta?.({ type: "text-delta", text: "half an answer" });
        throw new ModelError("overloaded", { retryable: true, messages, step: 2 });
      }
      return script(messages, tools, options);
    };
    const chunks = await chunksOf(
      streamAgent(WEATHER_TASK, model, registry, { retry: { attempts: 3, initialDelayMs: 1 } }),
    );
    expect(chunks.filter((c) => c.type === "reset-step")).toHaveLength(1);
    const message = await messageOf(chunks);
    expect(JSON.stringify(message)).not.toContain("half an answer");
    expect(message.parts.filter((part) => part.type === "step-start")).toHaveLength(3);
    expect(partsOf(message).filter((part) => (part as { type: string }).type === "tool-c_to_f")).toHaveLength(1);
  });

  it("a guardrail trip finishes with the guardrail in the metadata and finish reason content-filter", async () => {
    const trips: Guardrail = {
      name: "no-lima",
      check: (text) => (text.includes("Lima") ? { tripped: true, reason: "names Lima" } : { tripped: false }),
    };
    const chunks = await chunksOf(
      streamAgent("Where?", scriptedModel([final("Lima.")]), new ToolRegistry(), { guardrails: { output: [trips] } }),
    );
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "content-filter" });
    const message = await messageOf(chunks);
    expect(message.metadata).toMatchObject({
      status: "guardrail_tripped",
      guardrail: { name: "no-lima", stage: "output", reason: "names Lima" },
    });
  });

  it("typed output comes in the metadata as the parsed value", async () => {
    const output = jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
    const chunks = await chunksOf(
      streamAgent("Which?", scriptedModel([final('{"city":"Pune"}')]), new ToolRegistry(), { output }),
    );
    expect((await messageOf(chunks)).metadata).toMatchObject({ status: "done", output: { city: "Pune" } });
  });

  it("an agent tool's child shows its tool calls under chained ids, and its answer as the agent tool's output", async () => {
    const { registry: weather } = makeWeatherRegistry();
    const child = scriptedModel([asks(toolCall("k/1", "get_weather", { city: "Pune" })), final("30 C in Pune.")]);
    const registry = new ToolRegistry();
    registry.add(agentTool({ name: "research", description: "R.", model: child, registry: weather }));
    const parent = scriptedModel([asks(toolCall("r1", "research", { task: "Pune?" })), final("Pune is at 30 C.")]);
    const message = await messageOf(await chunksOf(streamAgent("Pune?", parent, registry)));
    expect(partsOf(message)).toMatchObject([
      { type: "tool-research", toolCallId: "r1", state: "output-available", output: "30 C in Pune." },
      { type: "tool-get_weather", toolCallId: "r1/k%2F1", state: "output-available", output: { celsius: 30 } },
      { type: "text", text: "Pune is at 30 C." },
    ]);
  });

  it("a run that rejects ends the stream with an error chunk, which the parser reports", async () => {
    const model: Model = () => {
      throw new ModelError("bad key", { retryable: false, messages: [], step: 1 });
    };
    const chunks = await chunksOf(streamAgent("Hi", model, new ToolRegistry()));
    expect(chunks.at(-1)).toMatchObject({ type: "error" });
    expect((chunks.at(-1) as { errorText: string }).errorText).toContain("bad key");
  });
});
