import {
  type ContentPart,
  isErrorMessage,
  type Message,
  type MessageContent,
  type ReasoningPart,
  type ToolCall,
  type ToolChoice,
  type ToolSpec,
} from "@agentloop/core/adapter";
import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolChoice,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import { BRIDGE_KEY, bridgeRecord, type ExecutedPart, providerOptionsOf } from "./bridge-metadata.js";

type AssistantPart = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number];
type ToolResultPart = Extract<AssistantPart, { type: "tool-result" }>;
type FilePart = Extract<AssistantPart, { type: "file" }>;

/**
 * The agent's message list as an AI SDK prompt (specification v4): system messages as they are;
 * a user message's text and parts (images and files as `file` parts, by data or URL); an assistant
 * message as its reasoning parts, its text, the tools the provider ran (call and result), then its
 * calls, each with the `providerMetadata` it came with as its `providerOptions` (the message's own
 * as the message's); consecutive tool messages as one `tool` message of results, an error
 * observation as `error-text`, parts as `content`.
 */
export function toPrompt(messages: readonly Message[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
        prompt.push({ role: "system", content: message.content });
        break;
      case "user":
        prompt.push({ role: "user", content: userParts(message.content) });
        break;
      case "assistant":
        prompt.push(assistantMessage(message));
        break;
      case "tool": {
        const result: ToolResultPart = {
          type: "tool-result",
          toolCallId: message.toolCallId,
          toolName: message.name,
          output: toolOutput(message),
        };
        const last = prompt.at(-1);
        if (last?.role === "tool") last.content.push(result);
        else prompt.push({ role: "tool", content: [result] });
        break;
      }
    }
  }
  return prompt;
}

function assistantMessage(message: Extract<Message, { role: "assistant" }>): LanguageModelV4Message {
  if (message.providerMetadata === undefined || !(BRIDGE_KEY in message.providerMetadata)) {
    // No tools the provider ran and no text metadata: reasoning, text, calls, in that order.
    const content: AssistantPart[] = [];
    for (const part of message.reasoning ?? []) content.push(reasoningPart(part));
    if (message.content !== "") content.push({ type: "text", text: message.content });
    for (const call of message.toolCalls) content.push(callPart(call));
    const providerOptions = providerOptionsOf(message.providerMetadata);
    return providerOptions === undefined
      ? { role: "assistant", content }
      : { role: "assistant", content, providerOptions: providerOptions as SharedV4ProviderOptions };
  }
  const record = bridgeRecord(message.providerMetadata);
  const executed = (record.providerExecuted ?? []).map(executedPart);
  const before = record.textAfter ?? 0;
  const content: AssistantPart[] = [
    ...(message.reasoning ?? []).map(reasoningPart),
    ...executed.slice(0, before),
    ...(message.content === "" && record.text === undefined
      ? []
      : [{ type: "text" as const, text: message.content, ...options(record.text) }]),
    ...executed.slice(before),
    ...message.toolCalls.map(callPart),
  ];
  return { role: "assistant", content, ...options(message.providerMetadata) };
}

function reasoningPart(part: ReasoningPart): AssistantPart {
  if (part.type === "redacted-reasoning") {
    // Reasoning a provider sent encrypted: the AI SDK's Anthropic provider keeps it as `redactedData`.
    return {
      type: "reasoning",
      text: "",
      ...options(part.providerMetadata ?? { anthropic: { redactedData: part.data } }),
    };
  }
  const signed = part.signature === undefined ? undefined : { anthropic: { signature: part.signature } };
  return { type: "reasoning", text: part.text, ...options(part.providerMetadata ?? signed) };
}

function callPart(call: ToolCall): AssistantPart {
  const part: AssistantPart = { type: "tool-call", toolCallId: call.id, toolName: call.name, input: call.args };
  const providerOptions = providerOptionsOf(call.providerMetadata);
  if (providerOptions !== undefined) part.providerOptions = providerOptions as SharedV4ProviderOptions;
  return part;
}

function executedPart(part: ExecutedPart): AssistantPart {
  if (part.type === "tool-call") {
    return {
      type: "tool-call",
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      input: part.input,
      providerExecuted: true,
      ...options(part.providerMetadata),
    };
  }
  const output: LanguageModelV4ToolResultOutput =
    part.isError === true
      ? typeof part.result === "string"
        ? { type: "error-text", value: part.result }
        : { type: "error-json", value: part.result }
      : { type: "json", value: part.result };
  return {
    type: "tool-result",
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    output,
    ...options(part.providerMetadata),
  };
}

/** `{ providerOptions }` from metadata (the bridge's own record left out), or nothing. */
function options(metadata: Parameters<typeof providerOptionsOf>[0]): { providerOptions?: SharedV4ProviderOptions } {
  const providerOptions = providerOptionsOf(metadata);
  return providerOptions === undefined ? {} : { providerOptions: providerOptions as SharedV4ProviderOptions };
}

function userParts(content: MessageContent): (Extract<AssistantPart, { type: "text" }> | FilePart)[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part) => (part.type === "text" ? { type: "text", text: part.text } : filePart(part)));
}

function filePart(part: Exclude<ContentPart, { type: "text" }>): FilePart {
  const url = fileUrl(part.data);
  return {
    type: "file",
    mediaType: part.mediaType,
    data: url === null ? { type: "data", data: part.data as string | Uint8Array } : { type: "url", url },
    ...(part.type === "file" && part.filename !== undefined ? { filename: part.filename } : {}),
  };
}

/** A part's URL, when its data is one (a normalized part holds base64 text, or a URL as text). */
function fileUrl(data: Uint8Array | string | URL): URL | null {
  if (data instanceof URL) return data;
  return typeof data === "string" && data.includes(":") ? new URL(data) : null;
}

function toolOutput(message: Extract<Message, { role: "tool" }>): LanguageModelV4ToolResultOutput {
  const { content } = message;
  if (typeof content === "string") {
    return isErrorMessage(message) ? { type: "error-text", value: content } : { type: "text", value: content };
  }
  return {
    type: "content",
    value: content.map((part) => {
      if (part.type === "text") return { type: "text" as const, text: part.text };
      const { data, mediaType } = filePart(part);
      return {
        type: "file" as const,
        data,
        mediaType,
        ...(part.type === "file" && part.filename !== undefined ? { filename: part.filename } : {}),
      };
    }),
  };
}

/**
 * The v4 prompt in the terms of specification v3: a file's data as base64 text, bytes or a URL
 * instead of a tagged object, and a tool result's parts as `file-data` / `file-url` /
 * `image-data` / `image-url`.
 */
export function toV3Prompt(prompt: LanguageModelV4Prompt): LanguageModelV3Prompt {
  return prompt.map((message) => {
    if (message.role === "system") return message;
    const content = message.content.map((part) => {
      if (part.type === "file" || part.type === "reasoning-file") {
        const { data, ...rest } = part;
        if (data.type === "url") return { ...rest, data: data.url };
        if (data.type === "data") return { ...rest, data: data.data };
        if (data.type === "text") return { ...rest, data: new TextEncoder().encode(data.text) };
        return { ...rest, data: "" };
      }
      if (part.type === "tool-result" && part.output.type === "content") {
        const value = part.output.value.map((item) => {
          if (item.type !== "file") return item;
          const image = item.mediaType.startsWith("image/");
          if (item.data.type === "url") return { type: image ? "image-url" : "file-url", url: item.data.url.href };
          const base64 = item.data.type === "data" ? base64Of(item.data.data) : "";
          return image
            ? { type: "image-data", data: base64, mediaType: item.mediaType }
            : {
                type: "file-data",
                data: base64,
                mediaType: item.mediaType,
                ...(item.filename === undefined ? {} : { filename: item.filename }),
              };
        });
        return { ...part, output: { type: "content", value } };
      }
      return part;
    });
    return { ...message, content };
  }) as LanguageModelV3Prompt;
}

function base64Of(data: string | Uint8Array): string {
  return typeof data === "string" ? data : Buffer.from(data).toString("base64");
}

/** The tool specs as function tools, their JSON Schema as registered, less `$schema`. */
export function toTools(tools: readonly ToolSpec[]): LanguageModelV4FunctionTool[] & LanguageModelV3FunctionTool[] {
  return tools.map((tool) => {
    const { $schema: _dialect, ...schema } = tool.parameters;
    return {
      type: "function" as const,
      name: tool.name,
      description: tool.description,
      inputSchema: { ...schema, properties: schema.properties ?? {} } as LanguageModelV4FunctionTool["inputSchema"],
    };
  });
}

/** A step's tool choice in the AI SDK's terms. */
export function toToolChoice(choice: ToolChoice): LanguageModelV4ToolChoice {
  if (choice === "auto" || choice === "required" || choice === "none") return { type: choice };
  return { type: "tool", toolName: choice.name };
}
