import type { ToolRegistry } from "@agentloop/core";
import * as restate from "@restatedev/restate-sdk";
import { ANSWER, decide } from "../scenario.js";

/**
 * The floor under agentloop on Restate: the weather scenario as a bare workflow making the same
 * `ctx.run` calls per step as `agentWorkflow` does (the model's reply; the tool's start, then its
 * result, since the scenario's tools are not idempotent), with no machine, no log and no status.
 * Its task is the agent's: JSON { steps, delayMs }.
 */
export function bareWorkflow(registry: ToolRegistry) {
  return restate.workflow({
    name: "bare",
    handlers: {
      run: async (
        ctx: restate.WorkflowContext,
        request: { task: string },
      ): Promise<{ answer: string; steps: number }> => {
        const { steps, delayMs } = JSON.parse(request.task) as { steps: number; delayMs: number };
        for (let step = 1; ; step++) {
          const call = await ctx.run(`model ${step}`, () => decide(step - 1, steps, delayMs));
          if (call === null) return { answer: ANSWER, steps: step };
          const key = `tool ${step}.0 ${call.id}`;
          await ctx.run(`${key} started`, () => new Date().toISOString());
          await ctx.run(`${key} finished`, async () => {
            const outcome = await registry.executeCall({ id: call.id, name: call.name, args: { ...call.args } });
            return outcome.content;
          });
        }
      },
    },
  });
}
