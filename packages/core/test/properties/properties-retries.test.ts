import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { initialTransition, transition } from "xstate";
import { isOverBudget } from "../../src/decide/index.js";
import { agentMachine, final, toolCall } from "../../src/index.js";
import { type AgentEvent, type AgentRequest, type AgentSnapshot, resolveSettings } from "../../src/machine.js";
import { makeWeatherRegistry } from "../../src/testing.js";

// Random runs of the pure machine with random failures: every model call it asks for passes the
// budget check first, a step never asks for more than (1 + attempts) × (1 + fallbacks) calls, and
// every run ends in a reply's outcome or gives up (the driver's ModelError).

const model = () => ({ content: "", toolCalls: [] });

type Move = { kind: "fail"; retryable: boolean; after?: number } | { kind: "call"; words: number } | { kind: "answer" };

const moves = fc.array(
  fc.oneof(
    fc.record({
      kind: fc.constant("fail" as const),
      retryable: fc.boolean(),
      after: fc.option(fc.nat(50), { nil: undefined }),
    }),
    fc.record({ kind: fc.constant("call" as const), words: fc.nat(60) }),
    fc.constant({ kind: "answer" as const }),
  ),
  { maxLength: 40 },
);

function requestsOf(actions: readonly unknown[]): AgentRequest[] {
  return actions.flatMap((action) => {
    const { type, params } = action as { type: string; params?: { event: AgentRequest } };
    return type === "xstate.emit" && params !== undefined ? [params.event] : [];
  });
}

function eventOf(move: Move, snapshot: AgentSnapshot, step: number): AgentEvent {
  if (snapshot.matches("retryWait")) return { type: "retry.waited" };
  if (snapshot.matches("executingTools")) {
    const id = snapshot.context.batch?.calls[0]?.id ?? "";
    return { type: "tool.finished", callId: id, content: '{"celsius":30}' };
  }
  if (move.kind === "fail") {
    return {
      type: "model.failed",
      error: "e",
      retryable: move.retryable,
      model: 0,
      ...(move.after === undefined ? {} : { retryAfterMs: move.after }),
    };
  }
  if (move.kind === "answer") return { type: "model.replied", reply: final("It is 30 C.") };
  const reply = {
    content: "word ".repeat(move.words),
    toolCalls: [toolCall(`w${step}`, "get_weather", { city: "Pune" })],
  };
  return { type: "model.replied", reply };
}

describe("retries, over random failures", () => {
  it("each attempt passes the budget check, a step's attempts stay in the bound, and runs end", () => {
    fc.assert(
      fc.property(
        fc.nat(3),
        fc.nat(2),
        fc.integer({ min: 40, max: 1500 }),
        moves,
        (attempts, fallbacks, budget, script) => {
          const settings = resolveSettings("How hot is Pune?", model, makeWeatherRegistry().registry, {
            tokenBudget: budget,
            maxSteps: 50,
            retry: { attempts, initialDelayMs: 1 },
            fallbackModels: Array.from({ length: fallbacks }, () => model),
          });
          const bound = (1 + attempts) * (1 + fallbacks);
          let [snapshot, actions] = initialTransition(agentMachine, { settings });
          let calls = requestsOf(actions).filter((request) => request.type === "callModel").length;
          if (calls > 0) expect(isOverBudget(snapshot.context)).toBe(false);
          for (const [index, move] of script.entries()) {
            if (snapshot.status !== "active") break;
            const event = eventOf(move, snapshot, index);
            [snapshot, actions] = transition(agentMachine, snapshot, event);
            if (event.type === "model.replied") calls = 0;
            const gaveUp = event.type === "model.failed" && snapshot.context.attempt === null;
            if (gaveUp) {
              expect(calls).toBeLessThanOrEqual(bound);
              return;
            }
            for (const request of requestsOf(actions)) {
              if (request.type !== "callModel") continue;
              expect(isOverBudget(snapshot.context)).toBe(false);
              calls += 1;
              expect(calls).toBeLessThanOrEqual(bound);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
