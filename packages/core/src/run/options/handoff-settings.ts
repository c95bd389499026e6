import type { AgentProfile, HandoffSettings, RunSettings } from "../../data/index.js";
import { askToolsOf } from "../../tools/index.js";
import { type RunAgent, targetOf } from "../performers/index.js";
import { costBudgetRefusal, modelNameOf, priceOf } from "./pricing.js";

/**
 * The handoff settings a run logs: every agent's profile, in the order they were found, the
 * starting one first. Throws a `RangeError` for a run that compacts (what an agent is shown after
 * a handoff is not compacted yet) and, with a `costBudget`, for an agent whose model has no price.
 */
export function handoffSettings(
  agents: ReadonlyMap<string, RunAgent>,
  settings: RunSettings,
  replyReserve: number | undefined,
): HandoffSettings {
  if (settings.compaction !== undefined) {
    throw new RangeError(
      "compaction cannot be given to a run with handoff tools: what a target is shown is never compacted",
    );
  }
  const [first] = agents.values() as IterableIterator<RunAgent>;
  const profiles: AgentProfile[] = [];
  for (const agent of agents.values()) {
    const reserve = agent === first ? settings.replyReserve : (replyReserve ?? agent.model.maxReplyTokens ?? 0);
    profiles.push(profileOf(agent, agent === first ? settings.system : agent.system, reserve, settings));
  }
  const { pricing } = settings;
  const unpriced = profiles.flatMap((profile) =>
    profile.price?.price === null ? [profile.price.name ?? "(unnamed)"] : [],
  );
  if (pricing !== undefined && settings.costBudget !== undefined && unpriced.length > 0) {
    throw new RangeError(costBudgetRefusal([...new Set(unpriced)]));
  }
  return { agent: (first as RunAgent).name, agents: profiles };
}

function profileOf(
  agent: RunAgent,
  system: string,
  replyReserve: number | undefined,
  settings: RunSettings,
): AgentProfile {
  const { registry } = agent;
  const transfers = registry.specs().flatMap(({ name }) => {
    const target = targetOf(registry, name);
    return target === undefined ? [] : [{ tool: name, to: target.agent.name }];
  });
  const approvalRequired = registry.approvalRequired();
  const idempotentTools = registry.idempotentTools();
  const repeatableTools = registry.repeatableTools();
  const askTools = askToolsOf(registry);
  const name = modelNameOf(agent.model);
  return {
    name: agent.name,
    system,
    tools: registry.specs(),
    ...(approvalRequired.length === 0 ? {} : { approvalRequired }),
    ...(idempotentTools.length === 0 ? {} : { idempotentTools }),
    ...(repeatableTools.length === 0 ? {} : { repeatableTools }),
    ...(askTools.length === 0 ? {} : { askTools }),
    ...(replyReserve === undefined ? {} : { replyReserve }),
    ...(settings.pricing === undefined ? {} : { price: { name, price: priceOf(settings.pricing, name) } }),
    transfers,
  };
}
