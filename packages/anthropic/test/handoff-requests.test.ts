import { asks, final, handoff, type Message, runAgent, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import type { ReasoningPart } from "@agentloop/core/adapter";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toAnthropicPrompt } from "../src/to-anthropic-request.js";

// Whatever a handoff's inputFilter keeps of a conversation, the request the target's model sends
// pairs every tool call with its result, right after it, and every result with its call; reasoning
// goes back only on a message that still says something (openai/openai-agents-js#42 and
// langchain-ai/langgraph-swarm-py#26: a call left without its result; openai-agents-python#2503:
// reasoning without the item it led to).

/** A valid conversation: user messages, and assistant messages whose calls (some with reasoning) are each answered right after. */
export function conversations(reasoning: (n: number) => ReasoningPart[]): fc.Arbitrary<Message[]> {
  const turn = fc.record({
    text: fc.constantFrom("", "Let me see."),
    calls: fc.integer({ min: 0, max: 3 }),
    thinks: fc.boolean(),
    user: fc.boolean(),
  });
  return fc.array(turn, { minLength: 1, maxLength: 8 }).map((turns) => {
    const messages: Message[] = [];
    let id = 0;
    for (const [n, { text, calls, thinks, user }] of turns.entries()) {
      if (user || n === 0) messages.push({ role: "user", content: `question ${n}` });
      const toolCalls = Array.from({ length: calls }, () => toolCall(`c${id++}`, "lookup", { q: String(n) }));
      messages.push({
        role: "assistant",
        content: calls === 0 && text === "" ? `answer ${n}` : text,
        toolCalls,
        ...(thinks && calls > 0 ? { reasoning: reasoning(n) } : {}),
      });
      for (const call of toolCalls) messages.push({ role: "tool", toolCallId: call.id, name: "lookup", content: "42" });
    }
    return messages;
  });
}

/** A filter as a user may write one: keep some messages, move some, repeat some, strip calls from some. */
export const filters: fc.Arbitrary<(messages: readonly Message[]) => Message[]> = fc
  .record({
    keep: fc.array(fc.boolean(), { maxLength: 40 }),
    swaps: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 4 }),
    repeat: fc.option(fc.nat()),
    strip: fc.option(fc.nat()),
  })
  .map(({ keep, swaps, repeat, strip }) => (messages: readonly Message[]) => {
    const kept = messages.filter((_, at) => keep[at] ?? true);
    for (const [a, b] of swaps) {
      if (kept.length === 0) break;
      const i = a % kept.length;
      const j = b % kept.length;
      [kept[i], kept[j]] = [kept[j] as Message, kept[i] as Message];
    }
    if (repeat !== null && kept.length > 0) kept.push(kept[repeat % kept.length] as Message);
    if (strip !== null && kept.length > 0) {
      const at = strip % kept.length;
      const message = kept[at] as Message;
      if (message.role === "assistant") kept[at] = { ...message, toolCalls: [] };
    }
    return kept;
  });

/** What the target of a handoff is shown, when triage hands `history` over through `filter`. */
export async function shownAfterHandoff(
  history: readonly Message[],
  filter: (messages: readonly Message[]) => Message[],
): Promise<readonly Message[]> {
  let shown: readonly Message[] = [];
  const billing = (messages: readonly Message[]) => {
    shown = [...messages];
    return final("Done.");
  };
  const registry = new ToolRegistry();
  registry.register("lookup", "Looks up.", { type: "object", properties: { q: { type: "string" } } }, () => "42");
  registry.add(handoff({ name: "billing", model: billing, registry: new ToolRegistry() }, { inputFilter: filter }));
  const triage = scriptedModel([asks(toolCall("h1", "transfer_to_billing"))]);
  await runAgent("Hand me over.", triage, registry, { history, tokenBudget: Number.POSITIVE_INFINITY });
  return shown;
}

type Block = { type: string; id?: string; tool_use_id?: string };
type Turn = { role: string; content: string | Block[] };

/** The pairing rules of the Messages API, as problems (none for a valid list). */
function problems(turns: readonly Turn[]): string[] {
  const found: string[] = [];
  const blocks = (turn: Turn | undefined): Block[] => (typeof turn?.content === "object" ? turn.content : []);
  for (const [at, turn] of turns.entries()) {
    const own = blocks(turn);
    if (turn.role === "assistant") {
      const uses = own.filter((block) => block.type === "tool_use").map((block) => block.id);
      const results = blocks(turns[at + 1]).filter((block) => block.type === "tool_result");
      const answered = results.map((block) => block.tool_use_id);
      for (const id of uses)
        if (!answered.includes(id)) found.push(`messages.${at}: tool_use ${id} has no tool_result right after`);
      const thinks = own.findIndex((block) => block.type === "thinking" || block.type === "redacted_thinking");
      const says = own.slice(thinks + 1).some((block) => block.type === "text" || block.type === "tool_use");
      if (thinks >= 0 && !says) found.push(`messages.${at}: thinking leads to nothing`);
      continue;
    }
    const before = blocks(turns[at - 1])
      .filter((block) => block.type === "tool_use")
      .map((block) => block.id);
    for (const block of own) {
      if (block.type === "tool_result" && !before.includes(block.tool_use_id)) {
        found.push(`messages.${at}: tool_result ${block.tool_use_id} answers no tool_use of the turn before`);
      }
    }
  }
  return found;
}

describe("a handoff's filtered conversation, as the Anthropic adapter sends it", () => {
  it("pairs every tool_use with its tool_result and sends no thinking alone, whatever the filter kept", async () => {
    const signed = (n: number): ReasoningPart[] => [{ type: "reasoning", text: `thinking ${n}`, signature: `sig${n}` }];
    await fc.assert(
      fc.asyncProperty(conversations(signed), filters, async (history, filter) => {
        const shown = await shownAfterHandoff(history, filter);
        const prompt = toAnthropicPrompt(shown);
        expect(prompt.system).toBe("Use the tools to answer the user.");
        expect(problems(prompt.messages as Turn[])).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("finds the problems it looks for in a list no filter could leave", () => {
    const use = { type: "tool_use", id: "a" };
    expect(
      problems([
        { role: "assistant", content: [use] },
        { role: "user", content: "x" },
      ]),
    ).not.toEqual([]);
    expect(problems([{ role: "user", content: [{ type: "tool_result", tool_use_id: "a" }] }])).not.toEqual([]);
    expect(problems([{ role: "assistant", content: [{ type: "thinking" }] }])).not.toEqual([]);
  });
});
