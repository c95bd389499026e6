import assert from "node:assert/strict";
import { aiSdkEmbedding } from "@agentloop/ai-sdk";
import { InMemoryMemoryStore } from "@agentloop/core";
import { openai } from "@ai-sdk/openai";
import type { EmbeddingModelV4 } from "@ai-sdk/provider";
import { MockEmbeddingModelV4 } from "ai/test";

// Any AI SDK embedding model: openai.embedding(...) reads OPENAI_API_KEY; without one, ai/test's mock
// model gives a vector per text from the words it holds.
const model: EmbeddingModelV4 =
  process.env.OPENAI_API_KEY === undefined ? offlineEmbeddings() : openai.embedding("text-embedding-3-small");

const memory = new InMemoryMemoryStore({ embed: aiSdkEmbedding(model) });
const ada = { resource: "ada" };
await memory.put(ada, "home", "Ada lives in Pune, in India");
await memory.put(ada, "pet", "Ada has a cat called Miso");
const [best] = await memory.search(ada, "Which city is Ada's home?", 1);
console.log(best?.key, best?.value);
assert.equal(best?.key, "home");

function offlineEmbeddings(): EmbeddingModelV4 {
  const words = ["city", "home", "india", "pune", "cat", "pet", "miso"];
  return new MockEmbeddingModelV4({
    doEmbed: async ({ values }) => ({
      embeddings: values.map((text) => words.map((word) => (text.toLowerCase().includes(word) ? 1 : 0))),
      warnings: [],
    }),
  });
}
