import type { Message, ToolCall, ToolSpec } from "@agentloop/core";
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";

/**
 * Maps the agent's message list to Chat Completions messages, one for one and in order: tool
 * calls carry their arguments as JSON text (the model's own text when it was not a JSON object,
 * so the model sees what it sent), and each tool result refers to its call by `tool_call_id`.
 */
export function toOpenAIMessages(messages: readonly Message[]): ChatCompletionMessageParam[] {
  return messages.map(toOpenAIMessage);
}

function toOpenAIMessage(message: Message): ChatCompletionMessageParam {
  if (message.role === "tool") return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  if (message.role !== "assistant") return { role: message.role, content: message.content };
  if (message.toolCalls.length === 0) return { role: "assistant", content: message.content };
  return {
    role: "assistant",
    // The wire form of "no text" next to tool calls is null, not "".
    content: message.content === "" ? null : message.content,
    tool_calls: message.toolCalls.map(toOpenAIToolCall),
  };
}

function toOpenAIToolCall(call: ToolCall): ChatCompletionMessageFunctionToolCall {
  return {
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.rawArgs ?? JSON.stringify(call.args) },
  };
}

/**
 * Maps tool specs to function tools: `parameters` is the tool's JSON Schema as registered, nested
 * keywords and `$defs` included, less `$schema` (the dialect is the validator's business, not the
 * model's); a schema without `properties` gets an empty one, which every server accepts.
 */
export function toOpenAITools(tools: readonly ToolSpec[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => {
    const { $schema: _dialect, ...schema } = tool.parameters;
    return {
      type: "function",
      function: {
        name: tool.name,
        description: tool.description,
        parameters: { ...schema, type: "object", properties: schema.properties ?? {} },
      },
    };
  });
}
