import type { Message, ToolSpec } from "@agentloop/core";
import type { ContentBlockParam, MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";

/** The agent's message list in the Messages API's terms: the system prompt apart, then alternating turns. */
export interface AnthropicPrompt {
  readonly system?: string;
  readonly messages: MessageParam[];
}

interface Turn {
  readonly role: "user" | "assistant";
  readonly content: ContentBlockParam[];
}

/**
 * Maps the agent's message list to the Messages API. System messages become the top-level
 * `system` prompt. An assistant message becomes one turn with its text (when not empty) and one
 * `tool_use` block per call; the tool messages after it become `tool_result` blocks, all in one
 * user turn and in call order, marked `is_error` when the observation starts with `ERROR:`.
 * Consecutive blocks of the same role share one turn, so roles always alternate.
 */
export function toAnthropicPrompt(messages: readonly Message[]): AnthropicPrompt {
  const system: string[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn["role"], blocks: ContentBlockParam[]): void => {
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case "system":
        system.push(message.content);
        break;
      case "user":
        push("user", [{ type: "text", text: message.content }]);
        break;
      case "assistant":
        push("assistant", [
          ...(message.content === "" && message.toolCalls.length > 0 ? [] : [textBlock(message.content)]),
          ...message.toolCalls.map((call) => ({
            type: "tool_use" as const,
            id: call.id,
            name: call.name,
            input: call.args,
          })),
        ]);
        break;
      case "tool":
        push("user", [
          {
            type: "tool_result",
            tool_use_id: message.toolCallId,
            content: message.content,
            ...(message.content.startsWith("ERROR:") ? { is_error: true } : {}),
          },
        ]);
        break;
    }
  }
  const joined = system.filter((text) => text !== "").join("\n\n");
  return { ...(joined === "" ? {} : { system: joined }), messages: turns.map(toMessageParam) };
}

function textBlock(text: string): ContentBlockParam {
  return { type: "text", text };
}

/** A turn that is one text block is sent as a plain string, the API's shortest form. */
function toMessageParam(turn: Turn): MessageParam {
  const [only, ...rest] = turn.content;
  if (only?.type === "text" && rest.length === 0) return { role: turn.role, content: only.text };
  return { role: turn.role, content: turn.content };
}

/**
 * Maps tool specs to client tools: `input_schema` is the tool's JSON Schema as registered, nested
 * keywords and `$defs` included, less `$schema`; a schema without `properties` gets an empty one.
 */
export function toAnthropicTools(tools: readonly ToolSpec[]): Tool[] {
  return tools.map((tool) => {
    const { $schema: _dialect, required, ...schema } = tool.parameters;
    return {
      name: tool.name,
      description: tool.description,
      input_schema: {
        ...schema,
        type: "object",
        properties: schema.properties ?? {},
        ...(required === undefined ? {} : { required: [...required] }),
      },
    };
  });
}
