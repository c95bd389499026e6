import type { Message, ToolSpec } from "@agentloop/core";
import type { ToolChoice } from "@agentloop/core/adapter";
import type {
  ContentBlockParam,
  MessageParam,
  Tool,
  ToolChoice as ToolChoiceParam,
} from "@anthropic-ai/sdk/resources/messages";
import { assistantBlocks, isErrorObservation } from "./assistant-blocks.js";
import { contentBlocks } from "./content-blocks.js";

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
 * `system` prompt. An assistant message becomes one turn: its thinking blocks first and unchanged,
 * its text (when not blank), one `tool_use` block per call (see `assistantBlocks`); the tool
 * messages after it become `tool_result` blocks, all in one user turn and in call order, marked
 * `is_error` for an error observation. Content parts become text, `image` and `document` blocks
 * (see `contentBlocks`), in a user turn or inside the tool result. Consecutive blocks of the same role share one turn, so
 * roles always alternate.
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
        push("user", contentBlocks(message.content));
        break;
      case "assistant": {
        // A reply with nothing to send back (an empty answer) is left out: the API refuses empty turns.
        const blocks = assistantBlocks(message);
        if (blocks.length > 0) push("assistant", blocks);
        break;
      }
      case "tool":
        push("user", [
          {
            type: "tool_result",
            tool_use_id: message.toolCallId,
            content: typeof message.content === "string" ? message.content : contentBlocks(message.content),
            ...(isErrorObservation(message) ? { is_error: true } : {}),
          },
        ]);
        break;
    }
  }
  const joined = system.filter((text) => text !== "").join("\n\n");
  return { ...(joined === "" ? {} : { system: joined }), messages: turns.map(toMessageParam) };
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

/** A step's tool choice in Anthropic's form: `required` is `any`, a named tool is `tool`. */
export function toAnthropicToolChoice(choice: ToolChoice): ToolChoiceParam {
  if (choice === "auto") return { type: "auto" };
  if (choice === "required") return { type: "any" };
  if (choice === "none") return { type: "none" };
  return { type: "tool", name: choice.name };
}
