import type { Message } from "@agentloop/core";
import { makeWeatherRegistry } from "@agentloop/provider-testkit";
import { afterEach, expect, it } from "vitest";
import { anthropicModel } from "../src/index.js";
import { type FakeAnthropic, MODEL, message, startFakeAnthropic } from "./fake-anthropic.js";

// History written by another provider (a fallback model, a handoff, a resumed conversation): Kimi K2
// on an OpenAI-compatible server names its calls `functions.<name>:<n>`, Codex `call_…|fc_…`; the
// Messages API refuses any tool_use id outside ^[a-zA-Z0-9_-]+$ with a 400
// (earendil-works/pi#9048, OpenSecretCloud/maple-proxy#18).
let server: FakeAnthropic | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it("sends history whose tool-call ids came from another provider in a form the API takes", async () => {
  server = await startFakeAnthropic([message({ content: [{ type: "text", text: "It is 86 F in Pune." }] })]);
  const messages: Message[] = [
    { role: "user", content: "How hot is Pune in Fahrenheit?" },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "functions.get_weather:0", name: "get_weather", args: { city: "Pune" } }],
    },
    {
      role: "tool",
      toolCallId: "functions.get_weather:0",
      name: "get_weather",
      content: '{"city":"Pune","celsius":30}',
    },
  ];
  const model = anthropicModel({ client: server.client({ maxRetries: 0 }), model: MODEL, maxTokens: 1024 });
  const reply = await model(messages, makeWeatherRegistry().registry.specs(), { signal: new AbortController().signal });
  expect(reply.content).toBe("It is 86 F in Pune.");
  type Turn = { content: { type: string; id?: string; tool_use_id?: string }[] };
  const turns = (server.requests[0]?.body as { messages: Turn[] } | undefined)?.messages ?? [];
  const useId = turns[1]?.content.find((block) => block.type === "tool_use")?.id;
  const resultId = turns[2]?.content.find((block) => block.type === "tool_result")?.tool_use_id;
  expect(useId).toMatch(/^[a-zA-Z0-9_-]+$/);
  expect(resultId).toBe(useId);
});
