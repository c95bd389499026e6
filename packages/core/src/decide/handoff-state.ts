import type { AgentProfile, AgentShown, HandoffSettings, ToolCall } from "../data/index.js";

/**
 * Handoffs in the machine's context: the agents of the run, the one answering now and what it is
 * shown, the handoff a reply asked for (taken once every call of the reply has its tool message),
 * and where in the list each agent began to answer.
 */
export interface HandoffState {
  readonly agents: readonly AgentProfile[];
  /** The agent answering now. */
  readonly agent: string;
  /** What it is shown, since a handoff gave it the conversation; null for the agent the run started with, before any handoff. */
  readonly shown: AgentShown | null;
  /** The handoff the last reply asked for, not yet taken. */
  readonly pending: { readonly call: ToolCall; readonly to: string } | null;
  /** From which message of the list on each agent answered, in order: the first is the starting agent's, at 0. */
  readonly turns: readonly { readonly at: number; readonly agent: string }[];
}

/** The handoffs of a run that has handoff tools, or null. */
export function initialHandoffs(settings: HandoffSettings | undefined): HandoffState | null {
  if (settings === undefined) return null;
  return {
    agents: settings.agents,
    agent: settings.agent,
    shown: null,
    pending: null,
    turns: [{ at: 0, agent: settings.agent }],
  };
}

/** The profile of the agent named `name` (every name a log gives is one of the run's agents: the log's check sees to it). */
export function profileOf(state: HandoffState, name: string): AgentProfile {
  return state.agents.find((agent) => agent.name === name) as AgentProfile;
}
