import { type AgentResult, type Message, runAgent } from "@agentloop/core";
import { makeWeatherRegistry, WEATHER_TASK } from "@agentloop/provider-testkit";
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { anthropicModel } from "../src/index.js";

// A live smoke test: the weather agent on the real Anthropic Messages API. It runs only when
// ANTHROPIC_API_KEY is set (ANTHROPIC_MODEL picks another model); otherwise it is skipped, with the
// reason in its name. CI never sets the key, so never goes online.

const key = process.env.ANTHROPIC_API_KEY || undefined;
const model = process.env.ANTHROPIC_MODEL || "claude-sonnet-4-5";

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
  ? `live: the weather agent on ${model} ends done, every tool call answered`
  : "live: the weather agent on a real Anthropic model (skipped: set ANTHROPIC_API_KEY to run)";

describe("anthropicModel against the real API", () => {
  it.skipIf(!key)(
    name,
    async () => {
      const client = new Anthropic({ apiKey: key });
      const { registry, runs } = makeWeatherRegistry();
      const result: AgentResult = await runAgent(
        WEATHER_TASK,
        anthropicModel({ client, model, maxTokens: 1024 }),
        registry,
        { tokenBudget: 50_000 },
      );
      const at = `the run: ${JSON.stringify({ ...result, runs }, null, 2)}`;
      expect(result.status, at).toBe("done");
      expect(result.answer?.trim(), at).toBeTruthy();
      expect(unanswered(result.messages), at).toEqual([]);
    },
    120_000,
  );
});
