import type { RecordedRequest } from "@agentloop/provider-testkit";

type Block = Record<string, unknown>;

const isThinking = (block: Block | undefined): boolean =>
  block?.type === "thinking" || block?.type === "redacted_thinking";

/** What the fake server handed out: each message's thinking blocks, by the ids of its tool uses. */
export class IssuedThinking {
  readonly #byToolUse = new Map<string, readonly Block[]>();
  readonly #signatures = new Set<string>();

  /** Records the thinking blocks of a message body the server sends. */
  remember(body: unknown): void {
    const content = (body as { content?: unknown } | undefined)?.content;
    if (!Array.isArray(content)) return;
    const blocks = content as Block[];
    const thinking = blocks.filter(isThinking);
    for (const block of thinking) if (typeof block.signature === "string") this.#signatures.add(block.signature);
    for (const block of blocks) {
      if (block.type === "tool_use" && typeof block.id === "string") this.#byToolUse.set(block.id, thinking);
    }
  }

  /** The thinking blocks issued with a message that had any of these tool uses. */
  thinkingOf(ids: readonly string[]): readonly Block[] | undefined {
    for (const id of ids) {
      const blocks = this.#byToolUse.get(id);
      if (blocks !== undefined) return blocks;
    }
    return undefined;
  }

  /** Whether the server issued this signature. */
  signed(signature: unknown): boolean {
    return typeof signature === "string" && this.#signatures.has(signature);
  }
}

const STARTS_WITH_THINKING =
  "When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking";

/**
 * The API's thinking rules, in its own words (quoted in Kilo-Org/kilocode#5219,
 * anthropics/claude-code#63284, lbjlaq/Antigravity-Manager#498): the assistant turn before the
 * last tool results must start with the thinking blocks the API sent with it, unchanged and in
 * order; and every thinking block sent back must carry a signature the API issued. The real API
 * applies the first rule when `thinking` is on, which is exactly when it issues thinking blocks.
 */
export function checkThinking(request: RecordedRequest, issued: IssuedThinking): string[] {
  const turns = (request.body as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(turns)) return [];
  const problems = turns.flatMap((turn: { content?: unknown }, index) =>
    blocksOf(turn).flatMap((block, at) =>
      block.type === "thinking" && !issued.signed(block.signature)
        ? [`messages.${index}.content.${at}: Invalid \`signature\` in \`thinking\` block`]
        : [],
    ),
  );
  const index = turns.length - 2;
  const assistant = blocksOf(turns[index]);
  const results = blocksOf(turns[index + 1]);
  if ((turns[index] as { role?: unknown })?.role !== "assistant" || !results.some((b) => b.type === "tool_result")) {
    return problems;
  }
  const ids = assistant.flatMap((block) =>
    block.type === "tool_use" && typeof block.id === "string" ? [block.id] : [],
  );
  const expected = issued.thinkingOf(ids) ?? [];
  if (expected.length === 0) return problems;
  if (!isThinking(assistant[0])) {
    const found = String(assistant[0]?.type);
    return [
      ...problems,
      `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. ${STARTS_WITH_THINKING}`,
    ];
  }
  const changed = expected.findIndex((block, at) => JSON.stringify(block) !== JSON.stringify(assistant[at]));
  return changed < 0
    ? problems
    : [
        ...problems,
        `messages.${index}.content.${changed}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`,
      ];
}

function blocksOf(turn: unknown): Block[] {
  const content = (turn as { content?: unknown } | undefined)?.content;
  return Array.isArray(content) ? (content as Block[]) : [];
}
