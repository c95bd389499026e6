import { contentText, type Message, type ModelReply, type ToolCall } from "@agentloop/core";

/**
 * Messages and replies in the shape of the GenAI conventions' input and output message schemas
 * (`gen_ai.input.messages`, `gen_ai.output.messages`), as JSON text: span attributes cannot hold
 * structured values in every SDK yet, and the conventions allow a JSON string on spans.
 */

type Part =
  | { readonly type: "text"; readonly content: string }
  | { readonly type: "reasoning"; readonly content: string }
  | { readonly type: "tool_call"; readonly id: string; readonly name: string; readonly arguments: unknown }
  | { readonly type: "tool_call_response"; readonly id: string; readonly response: string };

interface GenAIMessage {
  readonly role: Message["role"];
  readonly parts: readonly Part[];
  readonly finish_reason?: string;
}

/** `gen_ai.input.messages` for a list of messages, in order. */
export function inputMessages(messages: readonly Message[]): string {
  return JSON.stringify(messages.map(toGenAI));
}

/** `gen_ai.output.messages` for one reply: one assistant message with the reply's finish reason. */
export function outputMessages(reply: ModelReply): string {
  const message = toGenAI({
    role: "assistant",
    content: reply.content,
    toolCalls: reply.toolCalls,
    ...reasoningOf(reply),
  });
  return JSON.stringify([{ ...message, finish_reason: finishReason(reply) }]);
}

/** `gen_ai.output.messages` for a turn's answer. */
export function answerMessages(answer: string): string {
  return JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: answer }], finish_reason: "stop" }]);
}

/** `gen_ai.system_instructions` for a system prompt. */
export function systemInstructions(system: string): string {
  return JSON.stringify([{ type: "text", content: system }]);
}

/** `gen_ai.tool.call.arguments`: the arguments as JSON, or the model's text when it was not a JSON object. */
export function callArguments(call: ToolCall): string {
  return call.rawArgs ?? JSON.stringify(call.args);
}

/**
 * The reply's finish reason in the conventions' words: `tool_call` or `stop` for a reply that
 * ended the ordinary way, else `length`, `content_filter`, `refusal` or `other`.
 */
export function finishReason(reply: ModelReply): string {
  switch (reply.finishReason) {
    case undefined:
      return reply.toolCalls.length > 0 ? "tool_call" : "stop";
    case "content-filter":
      return "content_filter";
    default:
      return reply.finishReason;
  }
}

function reasoningOf(reply: ModelReply): Pick<Extract<Message, { role: "assistant" }>, "reasoning"> {
  return reply.reasoning === undefined ? {} : { reasoning: reply.reasoning };
}

function toGenAI(message: Message): GenAIMessage {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, parts: [{ type: "text", content: contentText(message.content) }] };
    case "tool":
      return {
        role: "tool",
        parts: [{ type: "tool_call_response", id: message.toolCallId, response: contentText(message.content) }],
      };
    case "assistant": {
      // Redacted reasoning is opaque data for the provider, not content anyone can read.
      const reasoning: Part[] = (message.reasoning ?? []).flatMap((part) =>
        part.type === "reasoning" ? [{ type: "reasoning", content: part.text }] : [],
      );
      const text: Part[] = message.content === "" ? [] : [{ type: "text", content: message.content }];
      const calls: Part[] = message.toolCalls.map((call) => ({
        type: "tool_call",
        id: call.id,
        name: call.name,
        arguments: call.rawArgs ?? call.args,
      }));
      return { role: "assistant", parts: [...reasoning, ...text, ...calls] };
    }
  }
}
