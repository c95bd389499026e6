import type { Message, Model, ModelCallOptions, ModelDelta, ModelReply, ToolCall } from "../data/index.js";

/** A model that replays a fixed script; `seen` holds a deep copy of the message list shown on each call. */
export type ScriptedModel = Model & { readonly seen: Message[][] };

/**
 * The test double: returns `replies` in order, records a JSON deep copy of every message list it
 * is shown (which also proves the list is plain JSON), and throws when the loop calls it more
 * often than the script allows. Asked to stream (`onDelta`), it streams each reply as a real
 * model would: its reasoning, its text and each call's arguments, word by word.
 */
export function scriptedModel(replies: readonly ModelReply[]): ScriptedModel {
  const script = [...replies];
  const seen: Message[][] = [];
  const model = (messages: readonly Message[], _tools: unknown, options?: ModelCallOptions): ModelReply => {
    if (seen.length >= script.length) {
      throw new Error(
        `script ran out: the loop called the model ${seen.length + 1} times, the script has ${script.length} replies`,
      );
    }
    seen.push(JSON.parse(JSON.stringify(messages)) as Message[]);
    const reply = script[seen.length - 1] as ModelReply;
    if (options?.onDelta !== undefined) for (const delta of deltasOf(reply)) options.onDelta(delta);
    return reply;
  };
  return Object.assign(model, { seen });
}

/** The deltas a streaming model would send for `reply`: reasoning, then text, then each call, in pieces. */
function deltasOf(reply: ModelReply): ModelDelta[] {
  const deltas: ModelDelta[] = [];
  for (const part of reply.reasoning ?? []) {
    if (part.type === "reasoning") for (const text of pieces(part.text)) deltas.push({ type: "reasoning-delta", text });
  }
  for (const text of pieces(reply.content)) deltas.push({ type: "text-delta", text });
  for (const [index, call] of reply.toolCalls.entries()) {
    const [first = "", ...rest] = pieces(call.rawArgs ?? JSON.stringify(call.args));
    deltas.push({ type: "tool-call-delta", index, id: call.id, name: call.name, argsText: first });
    for (const argsText of rest) deltas.push({ type: "tool-call-delta", index, argsText });
  }
  return deltas;
}

/** `text` cut after each space, so that the pieces join back to it. */
function pieces(text: string): string[] {
  return text.match(/[^ ]* ?/g)?.filter((piece) => piece !== "") ?? [];
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
