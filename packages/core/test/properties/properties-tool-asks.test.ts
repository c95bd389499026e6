import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hangGuard } from "../../../../hang-guard.js";
import {
  asks,
  final,
  MemoryEventStore,
  type Message,
  type ModelReply,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";

// Random runs with a tool that asks while it runs (once or twice), a plain tool and one that
// needs approval, several calls at once: every question is answered and every call approved until
// the run ends. One tool message per call in call order, no message ever edited, never more model
// calls than maxSteps, and the log replays to the live result.

function registry() {
  const tools = new ToolRegistry();
  tools.register(
    "book",
    "Books.",
    { type: "object", properties: { times: { type: "integer" } } },
    async (args, { ask }) => {
      const answers: unknown[] = [];
      for (let n = 0; n < (args as { times: number }).times; n++) answers.push(await ask(`Question ${n + 1}?`));
      return { answers };
    },
  );
  tools.register("lookup", "Looks up.", { type: "object", properties: {} }, () => "found");
  tools.register("send", "Sends.", { type: "object", properties: {} }, () => "sent", { needsApproval: true });
  return tools;
}

const replyArb = (step: number): fc.Arbitrary<ModelReply> =>
  fc.oneof(
    fc.constant(final(`answer ${step}`)),
    fc
      .subarray(["book", "lookup", "send"] as const, { minLength: 1 })
      .chain((names) =>
        fc
          .tuple(...names.map(() => fc.integer({ min: 0, max: 2 })))
          .map((times) =>
            asks(
              ...names.map((name, index) =>
                toolCall(`${name[0]}${step}`, name, name === "book" ? { times: times[index] } : {}),
              ),
            ),
          ),
      ),
  );

const runArb = fc.record({
  maxSteps: fc.integer({ min: 1, max: 3 }),
  toolConcurrency: fc.constantFrom(1, 2, Number.POSITIVE_INFINITY),
  replies: fc.tuple(...[1, 2, 3, 4].map(replyArb)),
});

/** Whether `before` is a prefix of `after`, message by message. */
function isPrefix(before: readonly Message[], after: readonly Message[]): boolean {
  return before.every((message, index) => JSON.stringify(message) === JSON.stringify(after[index]));
}

describe("tools that ask: property over random runs", () => {
  it(
    "one tool message per call in call order, messages never edited, model calls ≤ maxSteps, and replay gives the live result",
    async () => {
      await fc.assert(
        fc.asyncProperty(runArb, async ({ maxSteps, toolConcurrency, replies }) => {
          const tools = registry();
          const model = scriptedModel(replies);
          const store = new MemoryEventStore();
          let result = await runAgent("Trip?", model, tools, { store, runId: "r", maxSteps, toolConcurrency });
          let pauses = 0;
          while (result.status === "awaiting_input" || result.status === "awaiting_approval") {
            pauses += 1;
            expect(pauses).toBeLessThan(20);
            const before = result.messages;
            const answers = Object.fromEntries((result.pendingQuestions ?? []).map((q) => [q.id, `yes ${q.question}`]));
            const decisions = Object.fromEntries(
              (result.pendingApprovals ?? []).map((call) => [call.id, { approved: true }]),
            );
            result = await resumeAgent("r", model, tools, { store, answers, decisions });
            expect(isPrefix(before, result.messages)).toBe(true);
          }
          expect(result.steps).toBeLessThanOrEqual(maxSteps);
          const messages = result.messages;
          for (const [index, message] of messages.entries()) {
            if (message.role !== "assistant" || message.toolCalls.length === 0) continue;
            const answered = messages.slice(index + 1, index + 1 + message.toolCalls.length);
            expect(answered.map((m) => (m.role === "tool" ? m.toolCallId : m.role))).toEqual(
              message.toolCalls.map((call) => call.id),
            );
          }
          // A call that asked was made again with the answers, in the order it asked.
          for (const message of messages) {
            if (message.role !== "tool" || message.name !== "book" || typeof message.content !== "string") continue;
            const times = Number(
              (
                messages.find((m) => m.role === "assistant" && m.toolCalls.some((c) => c.id === message.toolCallId)) as
                  | Extract<Message, { role: "assistant" }>
                  | undefined
              )?.toolCalls.find((c) => c.id === message.toolCallId)?.args.times ?? 0,
            );
            const expected = Array.from({ length: times }, (_, n) => `yes Question ${n + 1}?`);
            expect(JSON.parse(message.content.split("\n")[0] as string)).toEqual({ answers: expected });
          }
          const { runId: _runId, ...live } = result;
          expect(replayRun(await store.read("r")).result).toEqual(live);
        }),
        { numRuns: 40 },
      );
    },
    hangGuard(60_000),
  );
});
