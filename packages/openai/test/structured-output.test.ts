import { runAgent } from "@agentloop/core";
import { makeWeatherRegistry, type RecordedRequest } from "@agentloop/provider-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { openaiModel } from "../src/index.js";
import { completion, type FakeOpenAI, MODEL, startFakeOpenAI } from "./fake-openai.js";
import { checkStrictResponseFormat } from "./openai-server-rules.js";

let server: FakeOpenAI | undefined;
afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests that break the Chat Completions wire format").toEqual([]);
});

const Answer = {
  type: "object",
  properties: { city: { type: "string" }, celsius: { type: "number" }, note: { type: "string" } },
  required: ["city", "celsius"],
} as const;

function formatOf(request: RecordedRequest | undefined): unknown {
  return (request?.body as { response_format?: unknown } | undefined)?.response_format;
}

describe("structured output over Chat Completions", () => {
  it("strict: sends the answer's schema as a strict json_schema response_format, and drops the nulls it makes the model send", async () => {
    server = await startFakeOpenAI([completion({ content: '{"city":"Pune","celsius":30,"note":null}' })]);
    const { registry } = makeWeatherRegistry();
    const model = openaiModel({ client: server.client(), model: MODEL, strict: true });
    const result = await runAgent("Weather in Pune?", model, registry, { output: Answer });
    expect(result.status).toBe("done");
    expect(result.output).toEqual({ city: "Pune", celsius: 30 });
    const format = formatOf(server.requests[0]) as { type: string; json_schema: Record<string, unknown> };
    expect(format.type).toBe("json_schema");
    expect(format.json_schema).toMatchObject({
      name: "answer",
      strict: true,
      schema: { type: "object", additionalProperties: false, required: ["city", "celsius", "note"] },
    });
    expect(checkStrictResponseFormat(format)).toEqual([]);
  });

  it("not strict: sends the schema as it is, with strict: false; without output, no response_format", async () => {
    server = await startFakeOpenAI([
      completion({ content: '{"city":"Pune","celsius":30}' }),
      completion({ content: "hi" }),
    ]);
    const { registry } = makeWeatherRegistry();
    const model = openaiModel({ client: server.client(), model: MODEL });
    await runAgent("q", model, registry, { output: Answer });
    expect(formatOf(server.requests[0])).toMatchObject({ json_schema: { name: "answer", strict: false } });
    await runAgent("q", model, registry);
    expect(formatOf(server.requests[1])).toBeUndefined();
  });

  it("a provider that ignores the request and answers in prose: the harness's check still holds, ERROR then a retry", async () => {
    server = await startFakeOpenAI([
      completion({ content: "It is 30 degrees in Pune." }),
      completion({ content: '{"city":"Pune","celsius":30}' }),
    ]);
    const { registry } = makeWeatherRegistry();
    const model = openaiModel({ client: server.client(), model: MODEL });
    const result = await runAgent("q", model, registry, { output: Answer });
    expect(result).toMatchObject({ status: "done", steps: 2, output: { city: "Pune", celsius: 30 } });
    const body = server.requests[1]?.body as { messages: { role: string; content: string }[] } | undefined;
    const sent = body?.messages ?? [];
    expect(sent.at(-1)).toMatchObject({ role: "user" });
    expect(sent.at(-1)?.content).toMatch(
      /^ERROR: your answer does not match the output schema: the answer is not JSON/,
    );
  });

  it("beside tools: the call step's prose is not taken for the answer, and the schema goes with the tools on every step", async () => {
    server = await startFakeOpenAI([
      completion({
        content: "Let me look that up.",
        toolCalls: [{ id: "call_1", name: "get_weather", arguments: '{"city":"Pune"}' }],
      }),
      completion({ content: '{"city":"Pune","celsius":30}' }),
    ]);
    const { registry, runs } = makeWeatherRegistry();
    const model = openaiModel({ client: server.client(), model: MODEL });
    const result = await runAgent("q", model, registry, { output: Answer });
    expect(result).toMatchObject({ status: "done", steps: 2, output: { city: "Pune", celsius: 30 } });
    expect(runs).toEqual([["get_weather", "Pune"]]);
    for (const request of server.requests) {
      const body = request.body as { tools?: unknown[]; response_format?: unknown };
      expect(body.tools?.length).toBeGreaterThan(0);
      expect(body.response_format).toMatchObject({ type: "json_schema" });
    }
  });

  it("a server that says finish_reason tool_calls on a text-only answer: the answer is still checked and kept", async () => {
    server = await startFakeOpenAI([
      completion({ content: '{"city":"Pune","celsius":30}', finishReason: "tool_calls" }),
    ]);
    const { registry } = makeWeatherRegistry();
    const model = openaiModel({ client: server.client(), model: MODEL });
    const result = await runAgent("q", model, registry, { output: Answer });
    expect(result).toMatchObject({ status: "done", steps: 1, output: { city: "Pune", celsius: 30 } });
  });
});
