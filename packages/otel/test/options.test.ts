import { readFileSync } from "node:fs";
import { final, scriptedModel, ToolRegistry } from "@agentloop/core";
import { trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { agentTelemetry, GENAI_SCHEMA_URL, type TelemetryOptions } from "../src/index.js";
import { SCOPE_VERSION } from "../src/semconv.js";
import { inMemory, only } from "./in-memory.js";

describe("telemetry options", () => {
  it.each([
    [undefined, "telemetry options must be an object"],
    [{}, "provider must name the model's provider"],
    [{ provider: " " }, "provider must name the model's provider"],
    [{ provider: "openai", model: "" }, "model must be a non-empty string"],
    [{ provider: "openai", agentName: 7 }, "agentName must be a non-empty string"],
    [{ provider: "openai", captureContent: "yes" }, "captureContent must be true or false"],
    [{ provider: "openai", maxTokens: 0 }, "maxTokens must be a whole number of tokens above 0"],
    [{ provider: "openai", maxTokens: 1.5 }, "maxTokens must be a whole number of tokens above 0"],
    [{ provider: "openai", maxTokens: "4096" }, "maxTokens must be a whole number of tokens above 0"],
    [{ provider: "openai", tracerProvider: {} }, "tracerProvider must be an OpenTelemetry TracerProvider"],
    [{ provider: "openai", fallbackModels: "claude" }, "fallbackModels must be an array of model names"],
    [{ provider: "openai", fallbackModels: ["claude", ""] }, "fallbackModels must be an array of model names"],
    [{ provider: "openai", summarizerModel: 4 }, "summarizerModel must be a non-empty string"],
  ])("refuses %j", (options, message) => {
    expect(() => agentTelemetry(options as unknown as TelemetryOptions)).toThrow(new RegExp(`^${message}`));
  });

  it("names the spans' scope after this package, with its version and the conventions' schema", async () => {
    const { telemetry, spans } = inMemory();
    await telemetry.runAgent("Hi", scriptedModel([final("Hello.")]), new ToolRegistry());
    const { instrumentationScope } = only(spans(), "invoke_agent");
    expect(instrumentationScope).toEqual({
      name: "@agentloop/otel",
      version: SCOPE_VERSION,
      schemaUrl: GENAI_SCHEMA_URL,
    });
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(SCOPE_VERSION).toBe(pkg.version);
  });

  it("leaves out the model and the agent's name when not given, from attributes and span names", async () => {
    const { telemetry, spans } = inMemory({ model: undefined });
    await telemetry.runAgent("Hi", scriptedModel([final("Hello.")]), new ToolRegistry());
    expect(spans().map((span) => span.name)).toEqual(["chat", "invoke_agent"]);
    for (const span of spans()) expect(span.attributes).not.toHaveProperty("gen_ai.request.model");
  });

  it("uses the global tracer provider when given none, and runs untraced with no SDK registered", async () => {
    const telemetry = agentTelemetry({ provider: "anthropic", model: "claude-sonnet-4-5" });
    expect(trace.getTracerProvider()).toBeDefined();
    const result = await telemetry.runAgent("Hi", scriptedModel([final("Hello.")]), new ToolRegistry());
    expect(result.answer).toBe("Hello.");
  });
});
