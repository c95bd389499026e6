export type { ServeOptions } from "@agentloop/core/serve";
export {
  type AiSdkEmbeddingModel,
  type AiSdkEmbeddingSettings,
  type AiSdkModel,
  AiSdkModelError,
  type AiSdkModelSettings,
  AiSdkStreamError,
  aiSdkEmbedding,
  aiSdkModel,
} from "./ai-sdk-model/index.js";
export { chatHandler } from "./chat-handler.js";
export { ChatRequestError, type ChatTurn, readChatTurn } from "./chat-request.js";
export { type LoadChatOptions, loadChat } from "./load-chat.js";
export {
  type HandoffData,
  type MemoryData,
  type QuestionData,
  type RunMetadata,
  toUIMessageStream,
  type UIMessageStreamOptions,
} from "./to-ui-message-stream.js";
export { UI_MESSAGE_STREAM_HEADERS, uiMessageStreamResponse } from "./ui-message-stream-response.js";
