import { checkHistory, isPlainObject } from "../data/index.js";

/** Why a logged `handoff` event is malformed, or null: a callId, from and to names, and messages a conversation may hold. */
export function handoffProblem(value: Record<string, unknown>): string | null {
  const { callId, from, to, messages } = value;
  if (typeof callId !== "string" || typeof from !== "string" || typeof to !== "string") {
    return "needs callId, from and to strings";
  }
  if (messages === undefined) return null;
  const checked = checkHistory(messages);
  return typeof checked === "string" ? `has bad messages: ${checked.replace(/^history/, "messages")}` : null;
}

/**
 * Why `settings.handoffs` is malformed, or null: the starting agent's name, and agents with unique
 * names, each with a system prompt, its tools, and handoff tools that name agents of the list.
 */
export function handoffSettingsProblem(value: unknown): string | null {
  if (value === undefined) return null;
  if (!isPlainObject(value) || typeof value.agent !== "string" || !Array.isArray(value.agents)) {
    return "needs settings.handoffs to be { agent, agents }";
  }
  const names = new Set<string>();
  for (const agent of value.agents) {
    if (!isPlainObject(agent) || typeof agent.name !== "string" || typeof agent.system !== "string") {
      return "needs each of settings.handoffs.agents to have name and system strings";
    }
    if (names.has(agent.name)) return `names agent '${agent.name}' twice in settings.handoffs.agents`;
    names.add(agent.name);
    if (!Array.isArray(agent.tools) || !Array.isArray(agent.transfers)) {
      return `needs agent '${agent.name}' of settings.handoffs to have tools and transfers lists`;
    }
  }
  if (!names.has(value.agent))
    return `starts with agent '${value.agent}', which settings.handoffs.agents does not hold`;
  for (const agent of value.agents as Record<string, unknown>[]) {
    for (const transfer of agent.transfers as unknown[]) {
      if (!isPlainObject(transfer) || typeof transfer.tool !== "string" || !names.has(transfer.to as string)) {
        return `has a transfer of agent '${agent.name}' that is not { tool, to } naming an agent of settings.handoffs`;
      }
    }
  }
  return null;
}
