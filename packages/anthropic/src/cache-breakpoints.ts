import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
} from "@anthropic-ai/sdk/resources/messages";

/** The prompt-cache mark: the default five-minute cache. */
const EPHEMERAL = { type: "ephemeral" } as const;

/** Blocks that may carry a cache mark (thinking blocks may not). */
const MARKABLE: ReadonlySet<string> = new Set(["text", "tool_result", "tool_use", "image", "document"]);

/**
 * Marks the stable prefix of a request for Anthropic's prompt cache, with at most the four marks
 * the API takes, in the order it reads the prompt: the last tool (the tool list), the system
 * prompt, the end of the conversation as it stood before the model's last reply (which the last
 * call wrote to the cache, so this call reads it), and the end of the whole conversation (which this
 * call writes for the next one). Each call of a run sends the previous one's prompt unchanged with
 * more after it, so every call but the first reads all but its newest messages from the cache.
 * Prompts shorter than the model's minimum are not cached by the API; nothing else changes.
 */
export function withCacheBreakpoints(body: MessageCreateParamsNonStreaming): MessageCreateParamsNonStreaming {
  const { tools, system, messages } = body;
  const lastTool = tools?.at(-1);
  const markedTools =
    tools === undefined || lastTool === undefined
      ? {}
      : { tools: [...tools.slice(0, -1), { ...lastTool, cache_control: EPHEMERAL } as typeof lastTool] };
  const markedSystem = system === undefined || system === "" ? {} : { system: markSystem(system) };
  return { ...body, ...markedTools, ...markedSystem, messages: markMessages(messages) };
}

function markSystem(system: string | TextBlockParam[]): TextBlockParam[] {
  const blocks = typeof system === "string" ? [{ type: "text" as const, text: system }] : system;
  const last = blocks.at(-1);
  return last === undefined ? blocks : [...blocks.slice(0, -1), { ...last, cache_control: EPHEMERAL }];
}

/** Marks the last message, and the last one before the model's last reply. */
function markMessages(messages: readonly MessageParam[]): MessageParam[] {
  const marked = [...messages];
  const lastAssistant = marked.findLastIndex((message) => message.role === "assistant");
  const targets = new Set([marked.length - 1, lastAssistant - 1].filter((index) => index >= 0));
  for (const index of targets) marked[index] = markMessage(marked[index] as MessageParam);
  return marked;
}

/** The message with its last block marked (a plain string becomes one text block), or as it is when that block may not be marked. */
function markMessage(message: MessageParam): MessageParam {
  const blocks: ContentBlockParam[] =
    typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
  const last = blocks.at(-1);
  if (last === undefined || !MARKABLE.has(last.type)) return message;
  if (last.type === "text" && last.text === "") return message;
  const content = [...blocks.slice(0, -1), { ...last, cache_control: EPHEMERAL } as ContentBlockParam];
  return { ...message, content } as MessageParam;
}
