import { type AgentResult, runAgent, ToolRegistry } from "@agentloop/core";
import { SEARCH_PARAMETERS as SEARCH } from "@agentloop/provider-testkit";
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

async function runSearch(...inputs: unknown[]): Promise<{ result: AgentResult; runs: unknown[]; fake: FakeAnthropic }> {
  const runs: unknown[] = [];
  const registry = new ToolRegistry();
  registry.register("search", "Searches the archive.", SEARCH, (query) => {
    runs.push(query);
    return { hits: 2 };
  });
  registry.register("ping", "Health check.", { type: "object" }, () => "pong");
  const steps = inputs.map((input, index) =>
    message({ content: [{ type: "tool_use", id: `toolu_${index}`, name: "search", input }], stopReason: "tool_use" }),
  );
  server = await startFakeAnthropic([...steps, message({ content: [{ type: "text", text: "Two hits." }] })]);
  const model = anthropicModel({ client: server.client(), model: MODEL, maxTokens: 512 });
  return { result: await runAgent("Find them.", model, registry), runs, fake: server };
}

describe("JSON Schema tools over the wire", () => {
  it("sends the schema as registered, $defs and all, less $schema, as input_schema", async () => {
    const { fake } = await runSearch();
    const { $schema: _dialect, ...sent } = SEARCH;
    expect((fake.requests[0]?.body as { tools: unknown } | undefined)?.tools).toEqual([
      { name: "search", description: "Searches the archive.", input_schema: sent },
      {
        name: "ping",
        description: "Health check.",
        input_schema: { type: "object", properties: {} },
        // The last tool marks the tool list for the prompt cache.
        cache_control: { type: "ephemeral" },
      },
    ]);
  });

  it("checks the model's nested arguments against it: a bad call is refused by path, a good one runs", async () => {
    const bad = { filters: [{ field: "year", op: "gt", value: "2020" }] };
    const good = { filters: [{ field: "year", op: "lt", value: "2020" }], limit: 5 };
    const { result, runs } = await runSearch(bad, good);
    const observations = result.messages.flatMap((m) => (m.role === "tool" ? [m.content] : []));
    expect(observations[0]).toMatch(/^ERROR: argument 'filters\[0\]\.op' must be one of "eq", "lt" \(got "gt"\)/);
    expect(observations[1]).toBe('{"hits":2}');
    expect(runs).toEqual([good]);
    expect(result.answer).toBe("Two hits.");
  });
});
