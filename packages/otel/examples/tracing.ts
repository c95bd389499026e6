import assert from "node:assert/strict";
import { asks, final, MemoryEventStore, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import { agentTelemetry } from "@agentloop/otel";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";

// Spans kept in memory, so that the example can look at them. In an application, set up the SDK
// as usual (say NodeSDK with an OTLP exporter) and leave `tracerProvider` out: the global one is used.
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const registry = new ToolRegistry();
registry.register(
  "get_weather",
  "Current temperature of one city in Celsius.",
  { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  ({ city }: { city: string }) => ({ city, celsius: 30 }),
);

// A model function does not say who serves it: name the provider and the model as you gave them
// to the adapter, e.g. openaiModel({ client, model: "gpt-4.1-mini" }). Content stays out unless
// captureContent is true.
const telemetry = agentTelemetry({ provider: "openai", model: "gpt-4.1-mini", tracerProvider });

// telemetry.runAgent is runAgent, traced: same arguments, same result, same errors.
const model = scriptedModel([asks(toolCall("c1", "get_weather", { city: "Pune" })), final("It is 30 °C in Pune.")]);
const store = new MemoryEventStore();
const result = await telemetry.runAgent("How hot is Pune?", model, registry, { store, runId: "pune-1" });
assert.equal(result.status, "done");

// One span per turn, and under it one per model call and one per tool call, as they ended.
const names = () => exporter.getFinishedSpans().map((span) => span.name);
assert.deepEqual(names(), ["chat gpt-4.1-mini", "execute_tool get_weather", "chat gpt-4.1-mini", "invoke_agent"]);
for (const span of exporter.getFinishedSpans()) assert.equal(span.attributes["gen_ai.conversation.id"], "pune-1");

// A past run, from its log: the same spans, timed by the events' `at`, ready for any backend.
exporter.reset();
telemetry.spansFromLog("pune-1", await store.read("pune-1"));
assert.equal(names().length, 4);
