import { type AgentResult, type ModelReply, runAgent, scriptedModel, ToolRegistry } from "@agentloop/core";
import { makeWeatherRegistry, weatherScript } from "@agentloop/core/testing";
import type { EvalCase, RunContext } from "../src/index.js";

/** Runs a case with a scripted model that answers `answers[case.id]` (the weather script for `weather`). */
export function scriptedRun(
  answers: Record<string, readonly ModelReply[]>,
): (c: EvalCase, context: RunContext) => Promise<AgentResult> {
  return async (c, { store, runId, signal }) => {
    const script = c.id === "weather" ? weatherScript() : answers[c.id];
    if (script === undefined) throw new Error(`no script for case '${c.id}'`);
    const registry = c.id === "weather" ? makeWeatherRegistry().registry : new ToolRegistry();
    return runAgent(c.task, scriptedModel(script), registry, { store, runId, signal });
  };
}

/** Run ids from the case ids alone, so that two evaluations name their runs alike. */
export const fixedRunIds =
  (prefix: string) =>
  (c: EvalCase): string =>
    `${prefix}-${c.id}`;
