export {
  type AnthropicModel,
  type AnthropicModelOptions,
  type AnthropicRequestParams,
  anthropicModel,
} from "./anthropic-model.js";
export { AnthropicResponseError } from "./errors.js";
