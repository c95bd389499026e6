import type { Message, ReasoningPart, ToolCall, ToolChoice, ToolSpec } from "@agentloop/core/adapter";
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from "openai/resources/chat/completions";
import { toolContent, toolMedia, userContent } from "./content-parts.js";
import { toStrictParameters } from "./strict-schema.js";

/** The assistant-message field reasoning text goes back in, or `"none"` to send none back. */
export type ReasoningField = "reasoning_content" | "reasoning" | "none";

/**
 * Maps the agent's message list to Chat Completions messages, one for one and in order. Tool
 * calls carry their arguments as JSON text: always a valid JSON object, `{}` for arguments the
 * model sent cut off or malformed (servers such as Ollama refuse anything else; the model learns
 * what it sent from the `ERROR:` observation). Each tool result refers to its call by
 * `tool_call_id`; the images and files of tool results follow the tool messages in one user
 * message (Chat Completions takes none in a tool message). User messages' parts are sent as
 * `text`, `image_url` and `file` parts (see `userContent`). Reasoning without a signature (the kind compatible servers send) goes back on
 * its assistant message under `reasoningField`; signed or redacted parts are another provider's
 * and are left out.
 */
export function toOpenAIMessages(
  messages: readonly Message[],
  reasoningField: ReasoningField = "reasoning_content",
): ChatCompletionMessageParam[] {
  const sent: ChatCompletionMessageParam[] = [];
  let tools: Extract<Message, { role: "tool" }>[] = [];
  for (const message of messages) {
    if (message.role !== "tool" && tools.length > 0) {
      const media = toolMedia(tools);
      if (media !== null) sent.push(media);
      tools = [];
    }
    if (message.role === "tool") tools.push(message);
    sent.push(toOpenAIMessage(message, reasoningField));
  }
  const media = toolMedia(tools);
  if (media !== null) sent.push(media);
  return sent;
}

function toOpenAIMessage(message: Message, reasoningField: ReasoningField): ChatCompletionMessageParam {
  if (message.role === "tool") {
    return { role: "tool", tool_call_id: message.toolCallId, content: toolContent(message.content) };
  }
  if (message.role === "user") return { role: "user", content: userContent(message.content) };
  if (message.role === "system") return { role: "system", content: message.content };
  const base: ChatCompletionMessageParam =
    message.toolCalls.length === 0
      ? { role: "assistant", content: message.content }
      : {
          role: "assistant",
          // The wire form of "no text" next to tool calls is null, not "".
          content: message.content === "" ? null : message.content,
          tool_calls: message.toolCalls.map(toOpenAIToolCall),
        };
  const reasoning = reasoningTextOf(message.reasoning);
  if (reasoningField === "none" || reasoning === undefined) return base;
  return Object.assign(base, { [reasoningField]: reasoning });
}

function reasoningTextOf(parts: readonly ReasoningPart[] | undefined): string | undefined {
  const texts = (parts ?? []).flatMap((part) =>
    part.type === "reasoning" && part.signature === undefined ? [part.text] : [],
  );
  return texts.length === 0 ? undefined : texts.join("");
}

function toOpenAIToolCall(call: ToolCall): ChatCompletionMessageFunctionToolCall {
  return {
    id: call.id,
    type: "function",
    // `args` is `{}` when the model's text was not a JSON object (`rawArgs`).
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  };
}

/**
 * Maps tool specs to function tools: `parameters` is the tool's JSON Schema as registered, nested
 * keywords and `$defs` included, less `$schema` (the dialect is the validator's business, not the
 * model's); a schema without `properties` gets an empty one, which every server accepts. With
 * `strict`, each function is sent with `strict: true` and its schema as strict mode takes it
 * (see `toStrictParameters`, which throws `OpenAIRequestError` for a schema it cannot take).
 */
export function toOpenAITools(tools: readonly ToolSpec[], strict = false): ChatCompletionFunctionTool[] {
  return tools.map((tool) => {
    if (strict) {
      const parameters = toStrictParameters(tool);
      return { type: "function", function: { name: tool.name, description: tool.description, parameters, strict } };
    }
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

/** A step's tool choice in OpenAI's form: `auto`, `required` and `none` as they are, a named tool as a function choice. */
export function toOpenAIToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  return typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
}
