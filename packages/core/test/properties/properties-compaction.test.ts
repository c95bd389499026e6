import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appendMessage } from "../../src/data/index.js";
import {
  type AgentContext,
  compactionBoundary,
  initialContext,
  promptTokens,
  recordCompaction,
  shownMessages,
} from "../../src/decide/index.js";
import {
  asks,
  countTokens,
  final,
  type Message,
  type ModelReply,
  runAgent,
  scriptedModel,
  toolCall,
} from "../../src/index.js";
import { resolveSettings } from "../../src/machine.js";
import { bigResults, countingSummarizer, orphanProblem } from "../run/compaction-fixture.js";

/** One exchange after the task: a user message, a plain answer, or a reply with 1-3 calls followed by their tool messages. */
const groupArb = fc.oneof(
  fc.string({ maxLength: 30 }).map((content): Message[] => [{ role: "user", content }]),
  fc.string({ maxLength: 30 }).map((content): Message[] => [{ role: "assistant", content, toolCalls: [] }]),
  fc.tuple(fc.integer({ min: 1, max: 3 }), fc.string({ maxLength: 60 }), fc.nat()).map(([calls, text, seed]) => {
    const ids = Array.from({ length: calls }, (_, i) => `call-${seed}-${i}`);
    const assistant: Message = { role: "assistant", content: "", toolCalls: ids.map((id) => toolCall(id, "fetch")) };
    return [assistant, ...ids.map((id): Message => ({ role: "tool", toolCallId: id, name: "fetch", content: text }))];
  }),
);

function contextWith(keepRecent: number, strategy: "summarize" | "trim", history: readonly Message[]): AgentContext {
  const model = () => final("");
  const settings = resolveSettings("the task", model, bigResults(), {
    compaction: { triggerTokens: 0, strategy, keepRecent },
    ...(history.length === 0 ? {} : { history }),
  });
  return initialContext({ settings });
}

describe("compaction over random message lists and boundaries", () => {
  it("never shows a tool message without its call or a call without its tool messages, always the head, and estimates the view exactly", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(groupArb, { maxLength: 6 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 7 }),
        fc.constantFrom("summarize" as const, "trim" as const),
        fc.array(groupArb, { maxLength: 2 }),
        (rounds, keepRecent, strategy, historyGroups) => {
          const history = historyGroups.flat().filter((m) => m.role !== "user" || m.content !== "");
          let context = contextWith(keepRecent, strategy, history);
          const head = context.transcript.length;
          for (const [round, groups] of rounds.entries()) {
            let transcript = context.transcript;
            for (const message of groups.flat()) transcript = appendMessage(transcript, message);
            context = { ...context, transcript };
            const keptFrom = compactionBoundary(context);
            if (keptFrom !== null) {
              expect(keptFrom).toBeGreaterThan(context.compaction?.keptFrom ?? 0);
              const summary = strategy === "summarize" ? { summary: `summary ${round}` } : {};
              context = {
                ...context,
                ...recordCompaction(context, { type: "context.compacted", step: 1, keptFrom, ...summary }),
              };
              // Compacting again at once hides nothing more.
              expect(compactionBoundary(context)).toBeNull();
            }
            const shown = shownMessages(context);
            expect(orphanProblem(shown)).toBeNull();
            expect(shown.slice(0, head)).toEqual(context.transcript.items.slice(0, head));
            const kept = Math.min(keepRecent, context.transcript.length - head);
            expect(shown.slice(shown.length - kept)).toEqual(
              context.transcript.items.slice(context.transcript.length - kept, context.transcript.length),
            );
            expect(promptTokens(context)).toBe(countTokens(context.specs) + countTokens(shown));
          }
          // The list itself keeps every message.
          expect(context.transcript.length).toBe(head + rounds.flat(2).length);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("runAgent under compaction over random scripts", () => {
  const replyArb = fc.integer({ min: 1, max: 3 }).map((calls) => calls);
  it("shows the model no orphaned tool message and always the task, counts the summaries, and keeps every message", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(replyArb, { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 300, max: 3000 }),
        fc.constantFrom("summarize" as const, "trim" as const),
        async (callsPerReply, keepRecent, triggerTokens, strategy) => {
          let page = 0;
          const script: ModelReply[] = callsPerReply.map((calls, step) =>
            asks(...Array.from({ length: calls }, (_, i) => toolCall(`s${step}-${i}`, "fetch", { page: page++ }))),
          );
          script.push(final("done"));
          const model = scriptedModel(script);
          const summarizer = countingSummarizer({ inputTokens: 10, outputTokens: 1 });
          const result = await runAgent("the task", model, bigResults(), {
            tokenBudget: Number.POSITIVE_INFINITY,
            maxSteps: 20,
            compaction: { triggerTokens, strategy, keepRecent, summarizer },
          });
          expect(result.status).toBe("done");
          expect(result.messages).toHaveLength(2 + callsPerReply.length + page + 1);
          for (const seen of model.seen) {
            expect(orphanProblem(seen)).toBeNull();
            expect(seen[1]).toEqual({ role: "user", content: "the task" });
          }
          if (strategy === "trim") expect(summarizer.prompts).toHaveLength(0);
          const estimate = result.tokens - 11 * summarizer.prompts.length;
          expect(estimate).toBeGreaterThan(0);
        },
      ),
      { numRuns: 40 },
    );
  });
});
