export { OpenAIResponseError } from "./errors.js";
export { type OpenAIModel, type OpenAIModelOptions, type OpenAIRequestParams, openaiModel } from "./openai-model.js";
