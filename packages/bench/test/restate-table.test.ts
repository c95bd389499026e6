import { describe, expect, it } from "vitest";
import { TINY } from "../src/plan.js";
import { type Results, restateTable } from "../src/tables.js";

describe("the Restate rows", () => {
  it("say why they were not measured, one row each, when the server could not start", () => {
    const results = { plan: TINY, restate: "no Restate server binary is installed" } as unknown as Results;
    const lines = restateTable(results).split("\n");
    expect(lines.slice(2)).toEqual([
      "| per step, 5 steps: on Restate, and runAgent in one process | not measured: no Restate server binary is installed |",
      "| per step, 10 steps: on Restate, and runAgent in one process | not measured: no Restate server binary is installed |",
      "| per step, 5 steps: on Restate, and a bare workflow of the same ctx.run calls | not measured: no Restate server binary is installed |",
      "| per step, 10 steps: on Restate, and a bare workflow of the same ctx.run calls | not measured: no Restate server binary is installed |",
      "| 10 concurrent 5-step runs, 20 ms per model call, 1 service process: wall (÷ ideal 100 ms) | not measured: no Restate server binary is installed |",
      "| 10 concurrent 5-step runs, 20 ms per model call, 2 service processes: wall (÷ ideal 100 ms) | not measured: no Restate server binary is installed |",
    ]);
  });
});
