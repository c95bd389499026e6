import assert from "node:assert/strict";
import { aiSdkModel } from "@agentloop/ai-sdk";
import { runAgent, ToolRegistry } from "@agentloop/core";
import { google } from "@ai-sdk/google";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";

const registry = new ToolRegistry();
registry.register(
  "get_weather",
  "Current temperature of one city in Celsius.",
  { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  ({ city }: { city: string }) => ({ city, celsius: 30 }),
);

// Any AI SDK provider model: google("gemini-2.5-flash") reads GOOGLE_GENERATIVE_AI_API_KEY; without
// one, ai/test's mock model answers as Gemini would (a signed call, then the answer).
const provider: LanguageModelV4 =
  process.env.GOOGLE_GENERATIVE_AI_API_KEY === undefined ? offlineGemini() : google("gemini-2.5-flash");

const model = aiSdkModel(provider, {
  maxOutputTokens: 1024,
  providerOptions: { google: { thinkingConfig: { thinkingBudget: 512 } } },
});
const result = await runAgent("How hot is Pune?", model, registry);
console.log(result.status, result.answer);
assert.equal(result.status, "done");

function offlineGemini(): LanguageModelV4 {
  const usage = {
    inputTokens: { total: 60, noCache: 60, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 20, text: 12, reasoning: 8 },
  };
  return new MockLanguageModelV4({
    provider: "google.generative-ai",
    modelId: "gemini-2.5-flash",
    doGenerate: [
      {
        content: [
          {
            type: "tool-call",
            toolCallId: "c1",
            toolName: "get_weather",
            input: '{"city":"Pune"}',
            providerMetadata: { google: { thoughtSignature: "CiQBVKhc7mQ=" } },
          },
        ],
        finishReason: { unified: "tool-calls", raw: "STOP" },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "It is 30 °C in Pune." }],
        finishReason: { unified: "stop", raw: "STOP" },
        usage,
        warnings: [],
      },
    ],
  });
}
