import { asks, final, handoff, type Message, runAgent, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import type { ReasoningPart } from "@agentloop/core/adapter";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toOpenAIMessages } from "../src/to-openai-request.js";

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

type Wire = {
  role: string;
  content?: unknown;
  tool_calls?: { id: string }[];
  tool_call_id?: string;
  reasoning_content?: unknown;
};

/** The pairing rules of Chat Completions, as problems (none for a valid list). */
function problems(messages: readonly Wire[]): string[] {
  const found: string[] = [];
  let owed: string[] = [];
  for (const [at, message] of messages.entries()) {
    if (message.role === "tool") {
      if (owed[0] !== message.tool_call_id) found.push(`messages[${at}]: tool message answers no call just before it`);
      owed = owed.slice(1);
      continue;
    }
    if (owed.length > 0) found.push(`messages[${at}]: call ${owed[0]} has no tool message after it`);
    owed = message.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.id) : [];
    const says =
      (message.tool_calls ?? []).length > 0 || (typeof message.content === "string" && message.content !== "");
    if (message.reasoning_content !== undefined && !says) found.push(`messages[${at}]: reasoning leads to nothing`);
  }
  if (owed.length > 0) found.push(`call ${owed[0]} has no tool message after it`);
  return found;
}

describe("a handoff's filtered conversation, as the OpenAI adapter sends it", () => {
  it("pairs every call with its result and sends no reasoning alone, whatever the filter kept", async () => {
    const unsigned = (n: number): ReasoningPart[] => [{ type: "reasoning", text: `thinking ${n}` }];
    await fc.assert(
      fc.asyncProperty(conversations(unsigned), filters, async (history, filter) => {
        const shown = await shownAfterHandoff(history, filter);
        const wire = toOpenAIMessages(shown) as Wire[];
        expect(wire[0]).toEqual({ role: "system", content: "Use the tools to answer the user." });
        expect(problems(wire)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("finds the problems it looks for in a list no filter could leave", () => {
    expect(
      problems([
        { role: "assistant", content: null, tool_calls: [{ id: "a" }] },
        { role: "user", content: "x" },
      ]),
    ).not.toEqual([]);
    expect(problems([{ role: "tool", tool_call_id: "a", content: "x" }])).not.toEqual([]);
    expect(problems([{ role: "assistant", content: "", reasoning_content: "r" }])).not.toEqual([]);
  });
});
