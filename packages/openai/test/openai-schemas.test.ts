import { type AgentResult, runAgent, ToolRegistry } from "@agentloop/core";
import { SEARCH_PARAMETERS as SEARCH } from "@agentloop/provider-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { openaiModel } from "../src/index.js";
import { completion, type FakeOpenAI, MODEL, startFakeOpenAI } from "./fake-openai.js";

let server: FakeOpenAI | undefined;
afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests that break the Chat Completions wire format").toEqual([]);
});

async function runSearch(...args: string[]): Promise<{ result: AgentResult; runs: unknown[]; fake: FakeOpenAI }> {
  const runs: unknown[] = [];
  const registry = new ToolRegistry();
  registry.register("search", "Searches the archive.", SEARCH, (query) => {
    runs.push(query);
    return { hits: 2 };
  });
  registry.register("ping", "Health check.", { type: "object" }, () => "pong");
  const steps = args.map((text, index) =>
    completion({ toolCalls: [{ id: `c${index}`, name: "search", arguments: text }] }),
  );
  server = await startFakeOpenAI([...steps, completion({ content: "Two hits." })]);
  const model = openaiModel({ client: server.client(), model: MODEL });
  return { result: await runAgent("Find them.", model, registry), runs, fake: server };
}

describe("JSON Schema tools over the wire", () => {
  it("sends the schema as registered, $defs and all, less $schema, as function.parameters", async () => {
    const { fake } = await runSearch();
    const { $schema: _dialect, ...sent } = SEARCH;
    expect((fake.requests[0]?.body as { tools: unknown } | undefined)?.tools).toEqual([
      { type: "function", function: { name: "search", description: "Searches the archive.", parameters: sent } },
      {
        type: "function",
        function: { name: "ping", description: "Health check.", parameters: { type: "object", properties: {} } },
      },
    ]);
  });

  it("checks the model's nested arguments against it: a bad call is refused by path, a good one runs", async () => {
    const bad = JSON.stringify({ filters: [{ field: "year", op: "gt", value: "2020" }] });
    const good = JSON.stringify({ filters: [{ field: "year", op: "lt", value: "2020" }], limit: null });
    const { result, runs } = await runSearch(bad, good);
    const observations = result.messages.flatMap((message) => (message.role === "tool" ? [message.content] : []));
    expect(observations[0]).toMatch(/^ERROR: argument 'filters\[0\]\.op' must be one of "eq", "lt" \(got "gt"\)/);
    expect(observations[1]).toBe('{"hits":2}');
    expect(runs).toEqual([JSON.parse(good)]);
    expect(result.answer).toBe("Two hits.");
  });
});

describe("the fake server's check of tool schemas", () => {
  it("refuses a $ref that resolves nowhere, a $schema and an unknown nested type", async () => {
    const { checkChatCompletionRequest } = await import("./openai-wire-format.js");
    const parameters = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { a: { $ref: "#/$defs/missing" }, b: { type: "array", items: { type: "text" } } },
    };
    const body = {
      model: MODEL,
      messages: [{ role: "user", content: "u" }],
      tools: [{ type: "function", function: { name: "t", parameters } }],
    };
    const problems = checkChatCompletionRequest({
      method: "POST",
      path: "/v1/chat/completions",
      headers: { authorization: "Bearer sk-test" },
      body,
      abandoned: new Promise(() => {}),
    });
    expect(problems).toEqual([
      "tools[0].function.parameters.$schema: is not sent",
      'tools[0].function.parameters.properties.a.$ref: "#/$defs/missing" resolves to nothing in the schema',
      'tools[0].function.parameters.properties.b.items.type: must be one of ["string","integer","number","boolean","object","array","null"], got "text"',
    ]);
  });
});
