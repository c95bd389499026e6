export { type AiSdkModel, type AiSdkModelSettings, aiSdkModel } from "./ai-sdk-model.js";
export { type AiSdkEmbeddingModel, type AiSdkEmbeddingSettings, aiSdkEmbedding } from "./embedding.js";
export { AiSdkModelError, AiSdkStreamError } from "./errors.js";
