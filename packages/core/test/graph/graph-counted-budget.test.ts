import { describe, expect, it } from "vitest";
import {
  type AgentSnapshot,
  COUNTED_REPLY,
  explore,
  FINAL_STATES,
  HUGE_BUDGET,
  nextPromptTokens,
  type Path,
  reachedFinals,
  vertices,
} from "./agent-graph.js";

// The token budget against the provider's count, in the graph: every reply reports a prompt of
// COUNTED tokens, far more than the estimate of any prompt here. Along every run, no call after
// the first is made that the count (the last reported prompt plus the estimate of what came since)
// says would pass the budget; a run ends at the budget only where it says the next would; and the
// budget that lets the cheapest run reach the step limit still lets every exit be reached.

const COUNTED = 400;
const setup = { maxSteps: 3, repeatLimit: 2, policy: "stop", toolConcurrency: 1, counted: COUNTED } as const;

/** Along a path, at each call: what was spent before it and the prompt the count says it has at least. */
function needs(path: Path): { state: AgentSnapshot; spent: number; prompt: number }[] {
  const found: { state: AgentSnapshot; spent: number; prompt: number }[] = [];
  let last: number | null = null;
  let spent = 0;
  for (const [index, step] of path.steps.entries()) {
    if (step.state.value !== "callingModel") continue;
    const estimate = nextPromptTokens(step.state);
    found.push({ state: step.state, spent, prompt: last === null ? estimate : COUNTED + estimate - last });
    if (path.steps[index + 1]?.event.type === "model.replied") {
      last = estimate;
      spent += COUNTED + COUNTED_REPLY;
    }
  }
  return found;
}

/** The least budget that lets a run reach the step limit, by the count: the most it needs, on its cheapest path there. */
function tightestCountedBudget(): number {
  const roomy = explore({ ...setup, tokenBudget: HUGE_BUDGET });
  const full = roomy.paths.filter((path) => path.state.value === "stepLimit");
  expect(full.length).toBeGreaterThan(0);
  return Math.min(...full.map((path) => Math.max(...needs(path).map(({ spent, prompt }) => spent + prompt))));
}

const tokenBudget = tightestCountedBudget();
const graph = explore({ ...setup, tokenBudget });

describe("the token budget counts the provider's count, in the graph", () => {
  it("every exit is reached, the step limit and the budget among them", () => {
    expect(reachedFinals(graph)).toEqual([...FINAL_STATES].sort());
  });

  it("along every path, no call after the first starts that the count says would pass the budget", () => {
    let checked = 0;
    for (const path of graph.paths) {
      for (const { spent, prompt, state } of needs(path).slice(1)) {
        expect(spent).toBe(state.context.tokens);
        expect(spent + prompt).toBeLessThanOrEqual(tokenBudget);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  it("a run ends at the budget only where the count says its next call would pass it", () => {
    const ends = graph.paths.filter((path) => path.state.value === "tokenBudget");
    expect(ends.length).toBeGreaterThan(0);
    for (const path of ends) {
      const end = path.state;
      const prompt = COUNTED + nextPromptTokens(end) - lastEstimate(path);
      expect(end.context.tokens + prompt).toBeGreaterThan(tokenBudget);
      // The estimate alone would have let the call be made: the count is what stopped it.
      expect(end.context.tokens + nextPromptTokens(end)).toBeLessThanOrEqual(tokenBudget);
    }
    expect(vertices(graph).some((state) => state.value === "tokenBudget")).toBe(true);
  });
});

/** The estimate of the prompt of the last call made along a path. */
function lastEstimate(path: Path): number {
  let estimate = 0;
  for (const [index, step] of path.steps.entries()) {
    if (step.state.value === "callingModel" && path.steps[index + 1]?.event.type === "model.replied") {
      estimate = nextPromptTokens(step.state);
    }
  }
  return estimate;
}
