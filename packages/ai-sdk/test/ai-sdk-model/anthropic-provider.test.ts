import { type AgentStreamEvent, continueAgent, MemoryEventStore, runAgent } from "@agentloop/core";
import { deltaMismatches, makeWeatherRegistry, WEATHER_TASK } from "@agentloop/provider-testkit";
import { createAnthropic } from "@ai-sdk/anthropic";
import { describe, expect, it } from "vitest";
import { aiSdkModel } from "../../src/index.js";
import {
  ANSWER,
  ANSWER_EVENTS,
  anthropicEvents,
  isAnthropicStream,
  REDACTED,
  SIGNATURE,
  THINKING_CALL,
  THINKING_CALL_EVENTS,
  WEB_SEARCH,
} from "./anthropic-replies.js";
import { type ProviderReply, providerFetch } from "./provider-fetch.js";

function claude(replies: readonly ProviderReply[]) {
  const fake = providerFetch(replies, isAnthropicStream, anthropicEvents);
  const anthropic = createAnthropic({ apiKey: "test-key", fetch: fake.fetch });
  const model = aiSdkModel(anthropic("claude-sonnet-4-5"), {
    maxOutputTokens: 2048,
    providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } } },
  });
  return { model, calls: fake.calls };
}

const EXPECTED_THINKING = [
  { type: "thinking", thinking: "The user wants Fahrenheit. First the Celsius reading.", signature: SIGNATURE },
  { type: "redacted_thinking", data: REDACTED },
];

function assistantBlocks(body: Record<string, unknown> | undefined) {
  const messages = body?.messages as { role: string; content: Record<string, unknown>[] | string }[];
  return messages.find((message) => message.role === "assistant")?.content;
}

describe("Claude through aiSdkModel (@ai-sdk/anthropic)", () => {
  for (const streamed of [false, true]) {
    it(`keeps its thinking signatures and redacted thinking as anthropicModel does${streamed ? " (streamed)" : ""}`, async () => {
      const { model, calls } = claude(
        streamed
          ? [{ events: THINKING_CALL_EVENTS }, { events: ANSWER_EVENTS }]
          : [{ json: THINKING_CALL }, { json: ANSWER }],
      );
      const events: AgentStreamEvent[] = [];
      const store = new MemoryEventStore();
      const result = await runAgent(WEATHER_TASK, model, makeWeatherRegistry().registry, {
        store,
        runId: "c",
        tokenBudget: 1_000_000,
        ...(streamed ? { onEvent: (event: AgentStreamEvent) => events.push(event) } : {}),
      });
      expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", steps: 2 });
      expect(calls.map((call) => call.body.stream === true)).toEqual([streamed, streamed]);
      const blocks = assistantBlocks(calls[1]?.body);
      expect(blocks).toMatchObject([
        ...EXPECTED_THINKING,
        { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: { city: "Pune" } },
      ]);
      const replied = (await store.read("c")).find((event) => event.type === "model.replied");
      expect(replied?.type === "model.replied" && replied.reply.usage).toEqual({
        inputTokens: 52 + 1024 + 2048,
        outputTokens: 139,
        cachedInputTokens: 2048,
        cacheWriteTokens: 1024,
      });
      if (streamed) expect(deltaMismatches(events)).toEqual([]);
    });
  }

  it("a web search the server ran is logged, not run, and goes back as server_tool_use and its result", async () => {
    const { model, calls } = claude([{ json: WEB_SEARCH }, { json: ANSWER }]);
    const store = new MemoryEventStore();
    const { registry, runs } = makeWeatherRegistry();
    const first = await runAgent(WEATHER_TASK, model, registry, { store, runId: "w", tokenBudget: 1_000_000 });
    expect(first).toMatchObject({ status: "done", answer: "Pune is at 30 °C." });
    expect(runs).toEqual([]);
    const second = await continueAgent("w", "In Fahrenheit?", model, registry, { store });
    expect(second.answer).toBe("It is 86 F in Pune.");
    expect(assistantBlocks(calls[1]?.body)).toMatchObject([
      {
        type: "server_tool_use",
        id: "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
        name: "web_search",
        input: { query: "Pune weather now" },
      },
      {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
        content: [
          {
            type: "web_search_result",
            url: "https://weather.example.com/pune",
            encrypted_content: "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2YSDJ1",
          },
        ],
      },
      { type: "text", text: "Pune is at 30 °C." },
    ]);
  });
});
