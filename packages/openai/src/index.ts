export { OpenAIRequestError, OpenAIResponseError, OpenAIStreamError } from "./errors.js";
export { type OpenAIModel, type OpenAIModelOptions, type OpenAIRequestParams, openaiModel } from "./openai-model.js";
export type { ReasoningField } from "./to-openai-request.js";
