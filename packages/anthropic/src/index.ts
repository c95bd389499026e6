export {
  type AnthropicModel,
  type AnthropicModelOptions,
  type AnthropicRequestParams,
  anthropicModel,
} from "./anthropic-model.js";
export type { AnthropicClient } from "./client.js";
export { AnthropicRequestError, AnthropicResponseError, AnthropicStreamError } from "./errors.js";
