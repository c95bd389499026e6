import { asks, final, type Message, type Model, type ModelReply, ToolRegistry, toolCall } from "../../src/index.js";

/** A registry with one tool, `fetch`, whose results are 2 KB each: a list that grows fast. */
export function bigResults(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    "fetch",
    "Fetches a page.",
    { type: "object", properties: { page: { type: "integer" } } },
    (args) => `page ${String(args.page)}: ${"x".repeat(2000)}`,
  );
  return registry;
}

/** `calls` replies that fetch one page each (the last reply asks for two pages at once), then a final answer; every reply with `usage`. */
export function fetchingScript(calls: number): ModelReply[] {
  const usage = { inputTokens: 1, outputTokens: 1 };
  const replies: ModelReply[] = [];
  for (let page = 1; page < calls; page++) replies.push({ ...asks(toolCall(`c${page}`, "fetch", { page })), usage });
  replies.push({
    ...asks(toolCall(`c${calls}a`, "fetch", { page: calls }), toolCall(`c${calls}b`, "fetch", { page: 0 })),
    usage,
  });
  replies.push({ ...final("done"), usage });
  return replies;
}

/** A summarizer that counts its calls, keeps what it was asked, and answers `summary N` with the given usage. */
export function countingSummarizer(usage = { inputTokens: 50, outputTokens: 5 }): Model & {
  readonly prompts: Message[][];
} {
  const prompts: Message[][] = [];
  const summarizer = (messages: readonly Message[], tools: readonly unknown[]): ModelReply => {
    if (tools.length > 0) throw new Error("the summarizer was given tools");
    prompts.push(JSON.parse(JSON.stringify(messages)) as Message[]);
    return { content: `summary ${prompts.length}`, toolCalls: [], usage };
  };
  return Object.assign(summarizer, { prompts });
}

/** Why `messages` would be refused by a provider: a tool message without its call before it, or a call without its tool message. */
export function orphanProblem(messages: readonly Message[]): string | null {
  const open = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === "tool") {
      if (!open.delete(message.toolCallId))
        return `message ${index} answers call ${message.toolCallId}, not asked for before it`;
      continue;
    }
    if (open.size > 0) return `message ${index} comes before calls ${[...open].join(", ")} are answered`;
    if (message.role === "assistant") for (const call of message.toolCalls) open.add(call.id);
  }
  return open.size > 0 ? `calls ${[...open].join(", ")} are never answered` : null;
}
