export { type AiSdkModel, type AiSdkModelSettings, aiSdkModel } from "./ai-sdk-model.js";
export { AiSdkModelError, AiSdkStreamError } from "./errors.js";
