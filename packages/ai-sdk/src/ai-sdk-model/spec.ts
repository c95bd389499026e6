import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";

/** The AI SDK provider models the bridge takes: the language model specifications v3 and v4. */
export type AiSdkLanguageModel = LanguageModelV3 | LanguageModelV4;

/** The specification versions the bridge speaks. */
export const SPECIFICATION_VERSIONS: readonly string[] = ["v3", "v4"];

/** A reply part of either specification. */
export type ResultContent = LanguageModelV3Content | LanguageModelV4Content;
/** A stream part of either specification. */
export type StreamPart = LanguageModelV3StreamPart | LanguageModelV4StreamPart;
/** Usage of either specification (the same nested shape). */
export type ResultUsage = LanguageModelV3Usage | LanguageModelV4Usage;
/** A finish reason of either specification. */
export type ResultFinishReason = LanguageModelV3FinishReason | LanguageModelV4FinishReason;
/** Call options of either specification. */
export type CallOptions = LanguageModelV3CallOptions | LanguageModelV4CallOptions;
