import type { MemoryEmbed } from "@agentloop/core";
import type { EmbeddingModelV3, EmbeddingModelV4, SharedV4ProviderOptions } from "@ai-sdk/provider";
import { AiSdkModelError } from "./errors.js";

/** The AI SDK embedding models the bridge takes: the embedding model specifications v3 and v4. */
export type AiSdkEmbeddingModel = EmbeddingModelV3 | EmbeddingModelV4;

/** Settings of `aiSdkEmbedding`, passed to every call. */
export interface AiSdkEmbeddingSettings {
  /** The vector's length, for models that can shorten it (OpenAI's text-embedding-3). */
  readonly dimensions?: number;
  /** Options per provider, as the AI SDK's `providerOptions`. */
  readonly providerOptions?: SharedV4ProviderOptions;
}

/**
 * A memory store's `embed` from any AI SDK embedding model (`openai.embedding(...)`,
 * `google.textEmbedding(...)`, `mistral.embedding(...)`, …): one text per call, through the
 * provider model's own `doEmbed`, so the `ai` package is not loaded. A store calls it once per write
 * and once per search; a run's replay and resume never do. A reply without exactly one vector of
 * finite numbers is refused with the model named.
 */
export function aiSdkEmbedding(model: AiSdkEmbeddingModel, settings: AiSdkEmbeddingSettings = {}): MemoryEmbed {
  const named = checkedEmbeddingModel(model);
  const { dimensions, providerOptions } = settings;
  return async (text: string): Promise<readonly number[]> => {
    const result = await (model as EmbeddingModelV4).doEmbed({
      values: [text],
      ...(dimensions === undefined ? {} : { dimensions }),
      ...(providerOptions === undefined ? {} : { providerOptions }),
    });
    const embeddings: unknown = result?.embeddings;
    const [vector] = Array.isArray(embeddings) ? embeddings : [];
    if (
      !Array.isArray(embeddings) ||
      embeddings.length !== 1 ||
      !Array.isArray(vector) ||
      vector.length === 0 ||
      !vector.every((number) => typeof number === "number" && Number.isFinite(number))
    ) {
      throw new AiSdkModelError(`${named} gave no single vector of finite numbers for one text`);
    }
    return vector as number[];
  };
}

function checkedEmbeddingModel(model: unknown): string {
  if (typeof model !== "object" || model === null) {
    throw new AiSdkModelError(
      `aiSdkEmbedding takes an AI SDK embedding model, got ${model === null ? "null" : typeof model}`,
    );
  }
  const { specificationVersion, provider, modelId, doEmbed } = model as Record<string, unknown>;
  const named = typeof provider === "string" && typeof modelId === "string" ? `${provider}/${modelId}` : "the model";
  if (specificationVersion !== "v3" && specificationVersion !== "v4") {
    throw new AiSdkModelError(
      `aiSdkEmbedding speaks the AI SDK's embedding model specifications v3 and v4; ${named} is of ${
        typeof specificationVersion === "string" ? `specification ${specificationVersion}` : "no specification version"
      }`,
    );
  }
  if (typeof doEmbed !== "function") throw new AiSdkModelError(`${named} has no doEmbed: it is not an embedding model`);
  return named;
}
