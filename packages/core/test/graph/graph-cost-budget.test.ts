import { describe, expect, it } from "vitest";
import { transition } from "xstate";
import {
  type AgentSnapshot,
  eventsAlong,
  explore,
  FINAL_STATES,
  GRAPH_PRICE,
  HUGE_BUDGET,
  nextPromptTokens,
  reachedFinals,
  tightestStepLimitBudget,
  vertices,
} from "./agent-graph.js";

// The cost budget as a final state of the graph: every model is priced a million USD per 1M tokens,
// so a run's cost is its tokens and every sum is exact. With the token budget out of reach, the
// cost budget takes its place: it is reached, and along every path no call starts that could pass it.

const setup = { maxSteps: 3, repeatLimit: 2, policy: "stop", toolConcurrency: 1 } as const;
const costBudget = tightestStepLimitBudget(setup);
const graph = explore({ ...setup, tokenBudget: HUGE_BUDGET, costBudget });

/** USD the next call may cost at most: its prompt at the dearest input rate, and the longest reply. */
function nextCallCost(snapshot: AgentSnapshot): number {
  const { replyReserve } = snapshot.context;
  return (nextPromptTokens(snapshot) * GRAPH_PRICE.input + replyReserve * GRAPH_PRICE.output) / 1_000_000;
}

describe("costBudget in the graph", () => {
  it("reaches costBudget in place of tokenBudget, and every other exit", () => {
    const expected = [...FINAL_STATES.filter((state) => state !== "tokenBudget"), "costBudget"].sort();
    expect(reachedFinals(graph)).toEqual(expected);
  });

  it("every call starts within the budget: what the turn spent and the call's most cost no more than costBudget", () => {
    const calling = vertices(graph).filter((snapshot) => snapshot.value === "callingModel");
    expect(calling.length).toBeGreaterThan(3);
    for (const snapshot of calling) {
      const spent = snapshot.context.cost - snapshot.context.turnStart.cost;
      expect(spent + nextCallCost(snapshot)).toBeLessThanOrEqual(costBudget);
    }
  });

  it("a run ends at costBudget only when the next call could pass it, and its cost is its tokens", () => {
    const ends = vertices(graph).filter((snapshot) => snapshot.value === "costBudget");
    expect(ends.length).toBeGreaterThan(0);
    for (const end of ends) {
      expect(end.context.cost + nextCallCost(end)).toBeGreaterThan(costBudget);
      expect(end.context.cost).toBe(end.context.tokens);
      expect(end.output).toMatchObject({ status: "cost_budget", cost: end.context.tokens });
    }
  });

  it("a run that could make its last call reaches the step limit instead: the budget is the tightest that lets it", () => {
    const path = graph.paths.find((each) => each.state.value === "stepLimit");
    expect(path).toBeDefined();
    const events = eventsAlong(path as NonNullable<typeof path>);
    let snapshot = graph.paths[0]?.state as AgentSnapshot;
    for (const event of events) snapshot = transition(snapshot.machine, snapshot, event)[0];
    expect(snapshot.value).toBe("stepLimit");
    expect(snapshot.output).toMatchObject({ status: "step_limit", cost: snapshot.context.tokens });
  });
});
