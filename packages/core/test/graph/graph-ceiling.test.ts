import { describe, expect, it } from "vitest";
import { CEILING, eventsAlong, explore, FINAL_STATES, modelReplies, reachedFinals, vertices } from "./agent-graph.js";

// An owner's spending ceiling in the graph: every model call may be refused by it before it is made
// (the driver's `ceiling.reached` answer), which ends the turn at costBudget with the ceiling named.
// Every other exit stays reachable, and no path makes more model calls than maxSteps.

const setup = { maxSteps: 3, tokenBudget: 1_000_000, repeatLimit: 2, policy: "stop", ceiling: true } as const;
const graph = explore(setup);

describe("a spending ceiling in the graph", () => {
  it("reaches costBudget beside every other exit (the token budget is out of reach here)", () => {
    const expected = [...FINAL_STATES.filter((state) => state !== "tokenBudget"), "costBudget"].sort();
    expect(reachedFinals(graph)).toEqual(expected);
  });

  it("ends at costBudget only by the ceiling's refusal of a model call, its result naming the ceiling", () => {
    const ends = graph.paths.filter((path) => path.state.value === "costBudget");
    expect(ends.length).toBeGreaterThan(setup.maxSteps - 1);
    for (const path of ends) {
      const events = eventsAlong(path);
      expect(events.at(-1)).toEqual(CEILING);
      expect(path.state.output).toMatchObject({
        status: "cost_budget",
        ceiling: { window: "day", limit: 5, spent: 4.99, reserve: 0.02 },
      });
    }
  });

  it("is asked only while a model call is: no other state takes the refusal", () => {
    for (const snapshot of vertices(graph)) {
      if (snapshot.value === "callingModel" || snapshot.status !== "active") continue;
      expect(snapshot.can(CEILING)).toBe(false);
    }
  });

  it("no path makes more model calls than maxSteps", () => {
    for (const path of graph.paths) expect(modelReplies(eventsAlong(path))).toBeLessThanOrEqual(setup.maxSteps);
  });

  it("a turn that did not end at the ceiling names none", () => {
    for (const path of graph.paths) {
      if (path.state.status !== "done" || path.state.value === "costBudget") continue;
      expect(path.state.output).not.toHaveProperty("ceiling");
    }
  });
});
