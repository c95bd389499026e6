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
  const wireId = toolUseIds(messages);
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
        const blocks = assistantBlocks({
          ...message,
          toolCalls: message.toolCalls.map((call) => ({ ...call, id: wireId(call.id) })),
        });
        if (blocks.length > 0) push("assistant", blocks);
        break;
      }
      case "tool":
        push("user", [
          {
            type: "tool_result",
            tool_use_id: wireId(message.toolCallId),
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

/** The ids the API accepts on `tool_use` blocks (and so on `tool_result` blocks). */
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * Call ids as the API takes them: an id another provider wrote with characters the API refuses
 * (Kimi's `functions.get_weather:0`, Codex's `call_…|fc_…`) becomes the same id with each such
 * character replaced by `_`, counted on past any id the conversation already uses; the call and
 * its result get the same one, and the same conversation always gets the same ids.
 */
function toolUseIds(messages: readonly Message[]): (id: string) => string {
  const taken = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") for (const call of message.toolCalls) taken.add(call.id);
    if (message.role === "tool") taken.add(message.toolCallId);
  }
  const mapped = new Map<string, string>();
  return (id) => {
    if (TOOL_USE_ID.test(id)) return id;
    const known = mapped.get(id);
    if (known !== undefined) return known;
    const base = id.replace(/[^a-zA-Z0-9_-]/g, "_") || "call";
    let made = base;
    for (let n = 1; taken.has(made); n++) made = `${base}_${n}`;
    taken.add(made);
    mapped.set(id, made);
    return made;
  };
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
