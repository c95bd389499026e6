import { anthropicModel } from "@agentloop/anthropic";
import { type AgentResult, MemoryEventStore, runAgent, ToolRegistry } from "@agentloop/core";
import { openaiModel } from "@agentloop/openai";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";

/**
 * Asks OpenAI, and Claude when OpenAI cannot answer; `print` hears each failed attempt and wait.
 * The clients pick the servers: `new OpenAI()` and `new Anthropic()` read OPENAI_API_KEY and
 * ANTHROPIC_API_KEY. Returns the result and which model answered: 0 OpenAI, 1 Claude.
 */
export async function askWithFallback(
  openai: OpenAI,
  anthropic: Anthropic,
  print: (line: string) => void,
): Promise<{ result: AgentResult; answeredBy: number | undefined }> {
  const primary = openaiModel({ client: openai, model: "gpt-4.1-mini" });
  const fallback = anthropicModel({ client: anthropic, model: "claude-sonnet-4-5", maxTokens: 1024 });
  const store = new MemoryEventStore();
  const result = await runAgent("What is the capital of France?", primary, new ToolRegistry(), {
    store,
    runId: "capital",
    // A rate limit, an overload, a 5xx, a dropped connection or a timeout is tried again twice on
    // OpenAI, after 1 s then 2 s (the provider's retry-after wins), then Claude gets the call; a
    // refused key or an empty quota goes to Claude at once. The SDKs' own retries are off here:
    // one request per attempt, at most (1 + 2) × (1 + 1) requests for the step.
    retry: { attempts: 2, initialDelayMs: 1000 },
    fallbackModels: [fallback],
    onEvent: (event) => {
      if (event.type === "logged" && event.event.type === "model.failed") {
        print(`model ${event.event.model} failed: ${event.event.error}`);
      }
      if (event.type === "retry-waiting") print(`waiting ${event.delayMs} ms`);
    },
  });
  // Each failed attempt is logged before the next one, and the reply says which model gave it.
  const events = await store.read("capital");
  const answeredBy = events.find((event) => event.type === "model.replied")?.model;
  return { result, answeredBy };
}
