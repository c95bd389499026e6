import { type AgentResult, type Model, runAgent, type ToolRegistry } from "@agentloop/core";
import { createSkyInspector } from "@statelyai/inspect";

/**
 * Runs an agent while the Stately inspector shows it live: the statechart with the current state
 * lit, and every event and snapshot. `createSkyInspector` prints a link to open in a browser
 * (it needs network access; in a web page, `createBrowserInspector` opens the viewer itself).
 */
export async function watchInStately(task: string, model: Model, registry: ToolRegistry): Promise<AgentResult> {
  const inspector = createSkyInspector();
  try {
    return await runAgent(task, model, registry, { inspect: inspector.inspect });
  } finally {
    inspector.stop();
  }
}
