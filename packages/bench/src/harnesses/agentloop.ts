import { contentText, type Model, type ModelReply, runAgent, ToolRegistry } from "@agentloop/core";
import type { Harness, Outcome } from "../harness.js";
import { ANSWER, C_TO_F_TOOL, decide, SYSTEM, TASK, WEATHER_TOOL } from "../scenario.js";
import { packageVersion } from "../versions.js";

/**
 * The scenario's tools in agentloop's registry (which the floor uses too). `Registry` is another
 * build's `ToolRegistry` when two commits of core are compared (`scripts/compare-core.mjs`).
 */
export function weatherRegistry(Registry: new () => ToolRegistry = ToolRegistry): ToolRegistry {
  const registry = new Registry();
  registry.register(WEATHER_TOOL.name, WEATHER_TOOL.description, implied(WEATHER_TOOL.schema), WEATHER_TOOL.execute);
  registry.register(C_TO_F_TOOL.name, C_TO_F_TOOL.description, implied(C_TO_F_TOOL.schema), C_TO_F_TOOL.execute);
  return registry;
}

/** The schema without `additionalProperties`: agentloop's schemas reject unknown keys without saying so. */
function implied<S extends { additionalProperties: false }>(schema: S): Omit<S, "additionalProperties"> {
  const { additionalProperties: _, ...rest } = schema;
  return rest;
}

/** The fake model in agentloop's terms: the list starts with the system message and the task. */
export function weatherModel(steps: number, delayMs: number): Model {
  return async (messages): Promise<ModelReply> => {
    const call = await decide((messages.length - 2) / 2, steps, delayMs);
    if (call === null) return { content: ANSWER, toolCalls: [] };
    return { content: "", toolCalls: [{ id: call.id, name: call.name, args: call.args }] };
  };
}

/** An agentloop result, or the floor's (the same type), in the bench's terms. */
export function outcomeOf(result: Awaited<ReturnType<typeof runAgent>>): Outcome {
  const toolOutputs: string[] = [];
  for (const message of result.messages) if (message.role === "tool") toolOutputs.push(contentText(message.content));
  return {
    finished: result.status === "done",
    answer: result.answer ?? "",
    modelCalls: result.steps,
    toolOutputs,
    result,
  };
}

const registry = weatherRegistry();

export const agentloopHarness: Harness = {
  name: "agentloop",
  version: `@agentloop/core ${packageVersion("@agentloop/core")} (xstate ${packageVersion("@agentloop/core/node_modules/xstate")})`,
  prepare(steps, delayMs) {
    const model = weatherModel(steps, delayMs);
    const options = { system: SYSTEM, maxSteps: steps, tokenBudget: Number.POSITIVE_INFINITY };
    return async () => outcomeOf(await runAgent(TASK, model, registry, options));
  },
};
