import { InMemoryMemoryStore, MemoryEventStore, replayRun, runAgent, ToolRegistry } from "@agentloop/core";
import { final, scriptedModel } from "@agentloop/core/testing";
import { createMistral } from "@ai-sdk/mistral";
import { createOpenAI } from "@ai-sdk/openai";
import { describe, expect, it } from "vitest";
import { AiSdkModelError, aiSdkEmbedding } from "../../src/index.js";
import { providerFetch } from "./provider-fetch.js";

// OpenAI's embeddings reply, as its API sends it: a list of one embedding per input.
const openAiEmbedding = (embedding: readonly number[]) => ({
  json: {
    object: "list",
    data: [{ object: "embedding", index: 0, embedding }],
    model: "text-embedding-3-small",
    usage: { prompt_tokens: 6, total_tokens: 6 },
  },
});

// Mistral's, which has an id and the same list.
const mistralEmbedding = (embedding: readonly number[]) => ({
  json: {
    id: "emb-1",
    object: "list",
    data: [{ object: "embedding", embedding, index: 0 }],
    model: "mistral-embed",
    usage: { prompt_tokens: 6, total_tokens: 6, completion_tokens: 0 },
  },
});

const never = () => false;

describe("aiSdkEmbedding: an AI SDK embedding model as a memory store's embed", () => {
  it("asks OpenAI's embeddings endpoint for one text through @ai-sdk/openai, and gives its vector as sent", async () => {
    const { fetch, calls } = providerFetch([openAiEmbedding([0.25, -0.5, 1e-7])], never);
    const embed = aiSdkEmbedding(createOpenAI({ apiKey: "test", fetch }).embedding("text-embedding-3-small"), {
      dimensions: 3,
    });
    expect(await embed("Ada lives in Pune")).toEqual([0.25, -0.5, 1e-7]);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.url).toBe("https://api.openai.com/v1/embeddings");
    expect(calls[0]?.body).toMatchObject({
      model: "text-embedding-3-small",
      input: ["Ada lives in Pune"],
      dimensions: 3,
    });
  });

  it("embeds a memory once when it is written and a query once per search, never when a run is replayed", async () => {
    const { fetch, calls } = providerFetch(
      [
        mistralEmbedding([1, 0, 0]),
        mistralEmbedding([0, 1, 0]),
        // the turn's recall: the query is nearest the city
        mistralEmbedding([0.1, 0.9, 0]),
      ],
      never,
    );
    const memory = new InMemoryMemoryStore({
      embed: aiSdkEmbedding(createMistral({ apiKey: "test", fetch }).embedding("mistral-embed")),
    });
    const scope = { resource: "ada" };
    await memory.put(scope, "pet", "Ada has a cat called Miso");
    await memory.put(scope, "city", "Ada lives in Pune");
    const store = new MemoryEventStore();
    const result = await runAgent("Where do I live?", scriptedModel([final("In Pune.")]), new ToolRegistry(), {
      store,
      runId: "r",
      memory: { store: memory, scope, recall: 1 },
    });
    expect(result.status).toBe("done");
    expect(calls.map((call) => call.body.input)).toEqual([
      ["pet\nAda has a cat called Miso"],
      ["city\nAda lives in Pune"],
      ["Where do I live?"],
    ]);
    const events = await store.read("r");
    expect(events.find((event) => event.type === "memory.recalled")).toMatchObject({
      hits: [{ key: "city", value: "Ada lives in Pune" }],
    });
    replayRun(events, { runId: "r" });
    expect(calls).toHaveLength(3);
  });

  it("refuses a model of another specification, and a reply without one vector of numbers, naming the model", async () => {
    const old = { specificationVersion: "v2", provider: "acme", modelId: "e1", doEmbed: async () => ({}) };
    expect(() => aiSdkEmbedding(old as never)).toThrow(
      /embedding model specifications v3 and v4; acme\/e1 is of specification v2/,
    );
    const reply = (embeddings: unknown) =>
      aiSdkEmbedding({
        specificationVersion: "v3",
        provider: "acme",
        modelId: "e2",
        maxEmbeddingsPerCall: 1,
        supportsParallelCalls: true,
        doEmbed: async () => ({ embeddings, warnings: [] }),
      } as never)("text");
    for (const bad of [[], [[1], [2]], [[]], [[1, Number.NaN]], undefined]) {
      await expect(reply(bad)).rejects.toThrow(AiSdkModelError);
    }
    await expect(reply([[1, 2]])).resolves.toEqual([1, 2]);
  });
});
