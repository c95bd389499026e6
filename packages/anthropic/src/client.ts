import type Anthropic from "@anthropic-ai/sdk";

/**
 * The client `anthropicModel` sends through: the official SDK's `Anthropic`, or the same SDK's
 * clients for Claude on other clouds, `AnthropicBedrock` (`@anthropic-ai/bedrock-sdk`) and
 * `AnthropicVertex` (`@anthropic-ai/vertex-sdk`). Only its `messages.create` and `messages.stream`
 * are called.
 */
export interface AnthropicClient {
  readonly messages: Pick<Anthropic["messages"], "create" | "stream">;
}
