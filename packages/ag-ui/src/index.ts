export type { ServeOptions } from "@agentloop/core/serve";
export { agUiEventStreamResponse, agUiHandler } from "./ag-ui-handler.js";
export { APPROVAL_REASON, MEMORY_RECALLED, MEMORY_WRITTEN, QUESTION_REASON, toAgUiEvents } from "./to-ag-ui-events.js";
