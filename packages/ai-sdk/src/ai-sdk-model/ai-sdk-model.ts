import type { JSONValue, Message, Model, ModelCallOptions, ModelReply, ToolSpec } from "@agentloop/core/adapter";
import type {
  LanguageModelV3,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import { AiSdkModelError, classifyAiSdkError } from "./errors.js";
import { toReply } from "./from-result.js";
import type { AiSdkLanguageModel } from "./spec.js";
import { readStream } from "./stream.js";
import { toPrompt, toToolChoice, toTools, toV3Prompt } from "./to-prompt.js";

/** How `aiSdkModel` calls the provider model. */
export interface AiSdkModelSettings {
  /** Sent as the call's `providerOptions` on every call, by provider name (`{ google: { thinkingConfig: … } }`). */
  readonly providerOptions?: Record<string, Record<string, JSONValue>>;
  /** Most tokens one reply may have (the call's `maxOutputTokens`); a positive whole number. Without it, the provider's default. */
  readonly maxOutputTokens?: number;
  /** The model's name for `pricing` and the log; default `provider/modelId` (`google.generative-ai/gemini-2.5-flash`). */
  readonly name?: string;
}

/** A `Model` over an AI SDK provider model, with its name (for `pricing`) and, when set, its reply limit. */
export type AiSdkModel = Model & { readonly modelName: string; readonly maxReplyTokens?: number };

/**
 * A `Model` over any AI SDK provider model (`LanguageModelV3` or `LanguageModelV4`, from
 * `@ai-sdk/google`, `@ai-sdk/amazon-bedrock`, `@ai-sdk/mistral`…): each call sends the messages
 * (content parts as files), the tool specs as function tools, the step's tool choice, the
 * `output` schema as a JSON response format, `maxOutputTokens`, `providerOptions` and the run's
 * AbortSignal, through `doGenerate`, or `doStream` when the run listens to deltas. What the
 * provider attached to a call, a reasoning part or the reply (`providerMetadata`: a thought
 * signature) is kept in the reply, so logged, and sent back as that provider's options on the
 * next call, after a resume or a replay as well. Tools the provider ran itself are kept in the
 * reply's metadata, never run by the harness. Usage is read as billed (cache reads and writes,
 * reasoning). A failure rejects with the provider's error, marked retryable (with its
 * `retry-after`) as the provider says. A model of another specification version is refused here,
 * in one line.
 */
export function aiSdkModel(model: LanguageModelV3 | LanguageModelV4, settings: AiSdkModelSettings = {}): AiSdkModel {
  const checked = checkModel(model);
  const { providerOptions, maxOutputTokens, name } = settings;
  if (maxOutputTokens !== undefined && !(Number.isSafeInteger(maxOutputTokens) && maxOutputTokens > 0)) {
    throw new AiSdkModelError(`maxOutputTokens must be a positive whole number, got ${maxOutputTokens}`);
  }
  if (name !== undefined && (typeof name !== "string" || name === "")) {
    throw new AiSdkModelError("name must be a string that is not empty");
  }
  const modelName = name ?? `${checked.provider}/${checked.modelId}`;
  const always: Partial<LanguageModelV4CallOptions> = {};
  if (maxOutputTokens !== undefined) always.maxOutputTokens = maxOutputTokens;
  if (providerOptions !== undefined) always.providerOptions = providerOptions as SharedV4ProviderOptions;

  const call = async (
    messages: readonly Message[],
    tools: readonly ToolSpec[],
    { signal, onDelta, output, toolChoice }: ModelCallOptions,
  ): Promise<ModelReply> => {
    const prompt = toPrompt(messages);
    const options: LanguageModelV4CallOptions = { ...always, prompt, abortSignal: signal };
    // A tool choice goes only with tools: providers refuse one in a request that offers none.
    if (tools.length > 0) {
      options.tools = toTools(tools);
      if (toolChoice !== undefined) options.toolChoice = toToolChoice(toolChoice);
    }
    if (output !== undefined) options.responseFormat = { type: "json", schema: output.schema };
    try {
      if (onDelta === undefined) {
        const result = await generate(checked, options);
        return toReply(
          {
            content: result.content,
            finishReason: result.finishReason,
            usage: result.usage,
            providerMetadata: result.providerMetadata,
          },
          messages,
        );
      }
      const { stream } = await streamOf(checked, options);
      return toReply(await readStream(stream, onDelta), messages);
    } catch (error) {
      throw classifyAiSdkError(error);
    }
  };
  return Object.assign(call, { modelName }, maxOutputTokens === undefined ? {} : { maxReplyTokens: maxOutputTokens });
}

/** The model, when it is one of the specification versions the bridge speaks; else the one-line refusal. */
function checkModel(model: unknown): AiSdkLanguageModel {
  if (typeof model === "string") {
    throw new AiSdkModelError(
      `aiSdkModel takes a provider's model object (e.g. google("gemini-2.5-flash")), not the model id '${model}'`,
    );
  }
  if (typeof model !== "object" || model === null) {
    throw new AiSdkModelError(
      `aiSdkModel takes an AI SDK provider model, got ${model === null ? "null" : typeof model}`,
    );
  }
  const { specificationVersion, provider, modelId } = model as Record<string, unknown>;
  if (specificationVersion !== "v3" && specificationVersion !== "v4") {
    const named = typeof provider === "string" && typeof modelId === "string" ? `${provider}/${modelId}` : "the model";
    throw new AiSdkModelError(
      `aiSdkModel speaks the AI SDK's language model specifications v3 and v4; ${named} is of ${
        typeof specificationVersion === "string" ? `specification ${specificationVersion}` : "no specification version"
      } (its provider package needs an AI SDK 6 or later release)`,
    );
  }
  return model as AiSdkLanguageModel;
}

function generate(model: AiSdkLanguageModel, options: LanguageModelV4CallOptions) {
  if (model.specificationVersion === "v4") return model.doGenerate(options);
  return model.doGenerate({ ...options, prompt: toV3Prompt(options.prompt) } as Parameters<
    LanguageModelV3["doGenerate"]
  >[0]);
}

function streamOf(model: AiSdkLanguageModel, options: LanguageModelV4CallOptions) {
  if (model.specificationVersion === "v4") return model.doStream(options);
  return model.doStream({ ...options, prompt: toV3Prompt(options.prompt) } as Parameters<
    LanguageModelV3["doStream"]
  >[0]);
}
