import { type AgentResult, type Message, runAgent } from "@agentloop/core";
import { makeWeatherRegistry, WEATHER_TASK } from "@agentloop/provider-testkit";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { openaiModel } from "../src/index.js";

// A live smoke test: the weather agent on a real OpenAI (or OpenAI-compatible) server. It runs only
// when OPENAI_API_KEY is set (OPENAI_BASE_URL picks another server, OPENAI_MODEL another model);
// otherwise it is skipped, with the reason in its name. CI never sets the key, so never goes online.

const key = process.env.OPENAI_API_KEY || undefined;
const baseURL = process.env.OPENAI_BASE_URL || undefined;
const model = process.env.OPENAI_MODEL || "gpt-4.1-mini";

/** The ids of tool calls that did not get exactly one tool message. */
function unanswered(messages: readonly Message[]): string[] {
  const answers = new Map<string, number>();
  for (const message of messages) {
    if (message.role === "tool") answers.set(message.toolCallId, (answers.get(message.toolCallId) ?? 0) + 1);
  }
  return messages.flatMap((message) =>
    message.role === "assistant"
      ? message.toolCalls.filter((call) => answers.get(call.id) !== 1).map((call) => call.id)
      : [],
  );
}

const name = key
  ? `live: the weather agent on ${model} at ${baseURL ?? "api.openai.com"} ends done, every tool call answered`
  : "live: the weather agent on a real OpenAI model (skipped: set OPENAI_API_KEY to run)";

describe("openaiModel against the real API", () => {
  it.skipIf(!key)(
    name,
    async () => {
      const client = new OpenAI({ apiKey: key, baseURL });
      const { registry, runs } = makeWeatherRegistry();
      const result: AgentResult = await runAgent(
        WEATHER_TASK,
        openaiModel({ client, model, maxTokens: 1024 }),
        registry,
        {
          tokenBudget: 50_000,
        },
      );
      const at = `the run: ${JSON.stringify({ ...result, runs }, null, 2)}`;
      expect(result.status, at).toBe("done");
      expect(result.answer?.trim(), at).toBeTruthy();
      expect(unanswered(result.messages), at).toEqual([]);
    },
    120_000,
  );
});
