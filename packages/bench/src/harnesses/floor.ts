import type { Harness } from "../harness.js";
import { plainLoop } from "../plain-loop.js";
import { SYSTEM, TASK } from "../scenario.js";
import { outcomeOf, weatherModel, weatherRegistry } from "./agentloop.js";

const registry = weatherRegistry();

/** The floor: the spec's loop in plain TypeScript, with the same registry and model as agentloop. */
export const floorHarness: Harness = {
  name: "plain loop (floor)",
  version: "src/plain-loop.ts",
  prepare(steps, delayMs) {
    const model = weatherModel(steps, delayMs);
    return async () => outcomeOf(await plainLoop(TASK, SYSTEM, model, registry, steps, Number.POSITIVE_INFINITY));
  },
};
