import type { Message, Model, ModelReply, ToolCall } from "./types.js";

/** A model that replays a fixed script; `seen` holds a deep copy of the message list shown on each call. */
export type ScriptedModel = Model & { readonly seen: Message[][] };

/**
 * The test double: returns `replies` in order, records a JSON deep copy of every message list it
 * is shown (which also proves the list is plain JSON), and throws when the loop calls it more
 * often than the script allows.
 */
export function scriptedModel(replies: readonly ModelReply[]): ScriptedModel {
  const script = [...replies];
  const seen: Message[][] = [];
  const model = (messages: readonly Message[]): ModelReply => {
    if (seen.length >= script.length) {
      throw new Error(
        `script ran out: the loop called the model ${seen.length + 1} times, the script has ${script.length} replies`,
      );
    }
    seen.push(JSON.parse(JSON.stringify(messages)) as Message[]);
    return script[seen.length - 1] as ModelReply;
  };
  return Object.assign(model, { seen });
}

/** A tool call as a model would send it. */
export function toolCall(id: string, name: string, args: Record<string, unknown> = {}): ToolCall {
  return { id, name, args };
}

/** A reply with tool calls only. */
export function asks(...calls: ToolCall[]): ModelReply {
  return { content: "", toolCalls: calls };
}

/** A reply with no tool calls: `text` is the final answer. */
export function final(text: string): ModelReply {
  return { content: text, toolCalls: [] };
}
