import { ToolRegistry } from "@agentloop/core";
import { type HrTime, SpanStatusCode } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { agentTelemetry, type TelemetryOptions } from "../src/index.js";

/** A tracer provider that keeps every finished span in memory, and telemetry that sends to it. */
export function inMemory(options: Partial<TelemetryOptions> = {}) {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const telemetry = agentTelemetry({ provider: "openai", model: "gpt-4.1", tracerProvider, ...options });
  return { telemetry, tracerProvider, spans: () => exporter.getFinishedSpans(), reset: () => exporter.reset() };
}

/** Each span as the tests compare them: name, kind, parent's name, attributes, status, events. */
export function shape(spans: readonly ReadableSpan[]) {
  const names = new Map(spans.map((span) => [span.spanContext().spanId, span.name]));
  return byStart(spans).map((span) => ({
    name: span.name,
    kind: span.kind,
    parent: span.parentSpanContext === undefined ? null : (names.get(span.parentSpanContext.spanId) ?? "?"),
    attributes: span.attributes,
    status:
      span.status.code === SpanStatusCode.UNSET ? "unset" : span.status.code === SpanStatusCode.ERROR ? "error" : "ok",
    events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })),
  }));
}

/** The spans by start; a parent before the child that started in the same millisecond. */
export function byStart(spans: readonly ReadableSpan[]): ReadableSpan[] {
  return [...spans].sort((a, b) => ms(a.startTime) - ms(b.startTime) || depth(a) - depth(b));
}

/**
 * The spans as trees, one per turn (turns in order), children in an order that does not depend
 * on time: guardrails by stage and order, model calls by step, then tool calls by id. For comparing runs whose clocks differ.
 */
export function trees(spans: readonly ReadableSpan[]) {
  const node = (span: ReadableSpan): Record<string, unknown> => {
    const children = spans
      .filter((child) => child.parentSpanContext?.spanId === span.spanContext().spanId)
      .sort((a, b) => key(a).localeCompare(key(b)))
      .map(node);
    const { name, kind, attributes, status } = span;
    const events = span.events.map((event) => ({ name: event.name, attributes: event.attributes }));
    return { name, kind, attributes, status, events, children };
  };
  return spans
    .filter((span) => span.parentSpanContext === undefined)
    .sort((a, b) => ms(a.startTime) - ms(b.startTime))
    .map(node);
}

function key(span: ReadableSpan): string {
  const { "agentloop.step": step, "gen_ai.tool.call.id": id } = span.attributes;
  const { "agentloop.guardrail.stage": stage, "agentloop.guardrail.index": index } = span.attributes;
  if (stage !== undefined) return `guardrail ${String(stage)} ${String(index)}`;
  return step === undefined ? `tool ${String(id)}` : `chat ${String(step).padStart(6, "0")}`;
}

function depth(span: ReadableSpan): number {
  return span.parentSpanContext === undefined ? 0 : 1;
}

/** The one span named `name`; fails when there is none or several. */
export function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1)
    throw new Error(`expected one span '${name}', found ${found.length}: ${spans.map((s) => s.name)}`);
  return found[0] as ReadableSpan;
}

/** Milliseconds two spans' clocks may disagree by: the SDK anchors each span's clock to `Date.now()` at its start. */
export const CLOCK = 1;

/** Milliseconds since the epoch, from an OpenTelemetry time. */
export function ms([seconds, nanos]: HrTime): number {
  return seconds * 1000 + nanos / 1e6;
}

/** Attribute keys that carry content: none of them may appear unless content is asked for. */
export const CONTENT_KEYS = [
  "gen_ai.system_instructions",
  "gen_ai.input.messages",
  "gen_ai.output.messages",
  "gen_ai.tool.call.arguments",
  "gen_ai.tool.call.result",
  "agentloop.approval.reason",
];

/** A weather tool that takes `delays[city]` milliseconds (0 when not given), and fails for Atlantis. */
export function weather(delays: Record<string, number> = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    async ({ city }: { city: string }) => {
      await new Promise((resolve) => setTimeout(resolve, delays[city] ?? 0));
      if (city === "Atlantis") throw new Error(`no such city: ${city}`);
      return { city, celsius: city === "Pune" ? 30 : 35 };
    },
  );
  return registry;
}
