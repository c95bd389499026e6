import { describe, expect, it } from "vitest";
import { initialTransition, transition } from "xstate";
import { agentMachine, final, ToolRegistry } from "../../src/index.js";
import { type AgentEvent, type AgentRequest, type AgentSnapshot, resolveSettings } from "../../src/machine.js";

// Every path of one step's attempts, for each small policy: the failures (retryable or not), the
// waits, the reply, and the run's cancellation at any point. A path ends at a reply, at a final
// state, or where the attempts are given up (the driver then rejects with the ModelError).

const model = () => {
  throw new Error("graph traversal must not call the model");
};

function start(attempts: number, fallbacks: number, tokenBudget = 4000): AgentSnapshot {
  const fallbackModels = Array.from({ length: fallbacks }, () => model);
  const settings = resolveSettings("How hot is Pune?", model, new ToolRegistry(), {
    tokenBudget,
    retry: { attempts, initialDelayMs: 10, maxDelayMs: 40 },
    fallbackModels,
  });
  return initialTransition(agentMachine, { settings })[0];
}

const FAILED = (retryable: boolean): AgentEvent => ({ type: "model.failed", error: "e", retryable, model: 0 });
const WAITED: AgentEvent = { type: "retry.waited" };

function requestsOf(actions: readonly unknown[]): AgentRequest[] {
  return actions.flatMap((action) => {
    const { type, params } = action as { type: string; params?: { event: AgentRequest } };
    return type === "xstate.emit" && params !== undefined ? [params.event] : [];
  });
}

/** What each path of the step comes to: the model calls it made, and how it ended. */
function walk(snapshot: AgentSnapshot, calls: number, out: { calls: number; end: string }[]): void {
  const events: AgentEvent[] = snapshot.matches("callingModel")
    ? [FAILED(true), FAILED(false), { type: "model.replied", reply: final("ok") }]
    : snapshot.matches("retryWait")
      ? [WAITED, { type: "run.cancelled" }]
      : [];
  for (const event of events) {
    const [after, actions] = transition(agentMachine, snapshot, event);
    const requests = requestsOf(actions);
    const made = calls + requests.filter((request) => request.type === "callModel").length;
    if (after.status !== "active") out.push({ calls: made, end: String(after.value) });
    // Given up: the driver rejects before it takes the request the machine makes for a resumed run.
    else if (event.type === "model.failed" && after.context.attempt === null) out.push({ calls, end: "gave up" });
    else walk(after, made, out);
  }
}

describe("the attempts of one step", () => {
  for (const [attempts, fallbacks] of [
    [0, 0],
    [0, 1],
    [1, 0],
    [2, 0],
    [1, 1],
    [2, 2],
    [3, 1],
  ] as const) {
    it(`are at most (1 + ${attempts}) × (1 + ${fallbacks}) along every path, and that many when every attempt fails retryably`, () => {
      const out: { calls: number; end: string }[] = [];
      walk(start(attempts, fallbacks), 1, out);
      const bound = (1 + attempts) * (1 + fallbacks);
      expect(out.length).toBeGreaterThan(0);
      for (const path of out) expect(path.calls).toBeLessThanOrEqual(bound);
      expect(Math.max(...out.filter((path) => path.end === "gave up").map((path) => path.calls))).toBe(bound);
      // Every path ends: a reply, a cancellation in a wait, or the attempts given up.
      expect(new Set(out.map((path) => path.end))).toEqual(
        new Set(["done", "gave up", ...(attempts > 0 ? ["cancelled"] : [])]),
      );
    });
  }

  it("a wait is a state of its own: cancelled from it at once, and it asks for the backoff the policy gives", () => {
    const [waiting, actions] = transition(agentMachine, start(3, 0), FAILED(true));
    expect(waiting.value).toBe("retryWait");
    expect(requestsOf(actions)).toEqual([{ type: "waitRetry", delayMs: 10, jitter: true }]);
    const [second] = transition(agentMachine, transition(agentMachine, waiting, WAITED)[0], FAILED(true));
    expect(second.context.attempt).toMatchObject({ failures: 2, delayMs: 20 });
    expect(transition(agentMachine, second, { type: "run.cancelled" })[0].value).toBe("cancelled");
    const [provider, asked] = transition(agentMachine, start(3, 0), {
      type: "model.failed",
      error: "e",
      retryable: true,
      retryAfterMs: 5000,
      model: 0,
    });
    expect(provider.value).toBe("retryWait");
    // A provider's wait past the policy's maxDelayMs (40 here) is cut to it; one within it is kept.
    expect(requestsOf(asked)).toEqual([{ type: "waitRetry", delayMs: 40, jitter: false }]);
    const [, within] = transition(agentMachine, start(3, 0), {
      type: "model.failed",
      error: "e",
      retryable: true,
      retryAfterMs: 30,
      model: 0,
    });
    expect(requestsOf(within)).toEqual([{ type: "waitRetry", delayMs: 30, jitter: false }]);
  });
});
