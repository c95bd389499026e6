import { runAgent } from "@agentloop/core";
import { makeWeatherRegistry } from "@agentloop/provider-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicModel } from "../src/index.js";
import { type FakeAnthropic, MODEL, message, startFakeAnthropic } from "./fake-anthropic.js";

let server: FakeAnthropic | undefined;
afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests that break the Messages API wire format").toEqual([]);
});

const Answer = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { city: { type: "string" }, celsius: { type: "number" } },
  required: ["city", "celsius"],
  additionalProperties: false,
} as const;

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

describe("structured output over the Messages API", () => {
  it("asks for the answer's schema in output_config.format, beside the caller's effort; none without output", async () => {
    server = await startFakeAnthropic([message(text('{"city":"Pune","celsius":30}')), message(text("hi"))]);
    const { registry } = makeWeatherRegistry();
    const effort = { output_config: { effort: "low" as const } };
    const model = anthropicModel({ client: server.client(), model: MODEL, maxTokens: 256, ...effort });
    const result = await runAgent("Weather in Pune?", model, registry, { output: Answer });
    expect(result).toMatchObject({ status: "done", output: { city: "Pune", celsius: 30 } });
    const { $schema: _dialect, ...schema } = Answer;
    expect((server.requests[0]?.body as Record<string, unknown> | undefined)?.output_config).toEqual({
      effort: "low",
      format: { type: "json_schema", schema },
    });
    await runAgent("q", model, registry);
    expect((server.requests[1]?.body as Record<string, unknown> | undefined)?.output_config).toEqual({ effort: "low" });
  });

  it("a server that ignores the format and answers in prose: the harness's check still holds, ERROR then a retry", async () => {
    server = await startFakeAnthropic([
      message(text("Warm, 30 degrees.")),
      message(text('{"city":"Pune","celsius":30}')),
    ]);
    const { registry } = makeWeatherRegistry();
    const model = anthropicModel({ client: server.client(), model: MODEL, maxTokens: 256 });
    const result = await runAgent("q", model, registry, { output: Answer });
    expect(result).toMatchObject({ status: "done", steps: 2 });
    const sent = (server.requests[1]?.body as { messages: { role: string; content: unknown }[] } | undefined)?.messages;
    expect(JSON.stringify(sent?.at(-1))).toContain("ERROR: your answer does not match the output schema");
  });

  it("beside tools: the tool_use step's text is not taken for the answer, and the format goes with the tools on every step", async () => {
    server = await startFakeAnthropic([
      message({
        content: [
          { type: "text", text: "Let me look that up." },
          { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Pune" } },
        ],
      }),
      message(text('{"city":"Pune","celsius":30}')),
    ]);
    const { registry, runs } = makeWeatherRegistry();
    const model = anthropicModel({ client: server.client(), model: MODEL, maxTokens: 256 });
    const result = await runAgent("q", model, registry, { output: Answer });
    expect(result).toMatchObject({ status: "done", steps: 2, output: { city: "Pune", celsius: 30 } });
    expect(runs).toEqual([["get_weather", "Pune"]]);
    for (const request of server.requests) {
      const body = request.body as { tools?: unknown[]; output_config?: { format?: unknown } };
      expect(body.tools?.length).toBeGreaterThan(0);
      expect(body.output_config?.format).toMatchObject({ type: "json_schema" });
    }
  });

  it("a reply that ends with stop_reason tool_use but carries only text: the answer is still checked and kept", async () => {
    server = await startFakeAnthropic([message({ ...text('{"city":"Pune","celsius":30}'), stopReason: "tool_use" })]);
    const { registry } = makeWeatherRegistry();
    const model = anthropicModel({ client: server.client(), model: MODEL, maxTokens: 256 });
    const result = await runAgent("q", model, registry, { output: Answer });
    expect(result).toMatchObject({ status: "done", steps: 1, output: { city: "Pune", celsius: 30 } });
  });
});
