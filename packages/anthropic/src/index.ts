export {
  type AnthropicModel,
  type AnthropicModelOptions,
  type AnthropicRequestParams,
  anthropicModel,
} from "./anthropic-model.js";
export { AnthropicRequestError, AnthropicResponseError, AnthropicStreamError } from "./errors.js";
