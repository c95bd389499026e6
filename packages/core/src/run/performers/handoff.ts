import type { HandOffRequest, HandoffEvent, Message, Model, Transcript } from "../../data/index.js";
import { checkHistory, describeValue, messagesOf, pairedCalls } from "../../data/index.js";
import type { Tool } from "../../tools/index.js";
import { PERFORMER, ToolRegistry, tool } from "../../tools/index.js";
import { DEFAULT_SYSTEM } from "./default-system.js";
import { answerOf, type EventAnswer } from "./event-answer.js";

/** A model that may say how long its replies can be and its name (adapters set both). */
type ModelWithLimits = Model & { readonly maxReplyTokens?: number; readonly modelName?: string };

/** An agent the conversation can be handed to: its name, its model, its tools and its system prompt. */
export interface HandoffAgent {
  /** 1-64 letters, digits, `_` or `-`; unique among the agents of a run. */
  readonly name: string;
  /** What the agent is for, shown to the model in the handoff tool's description. */
  readonly description?: string;
  readonly model: ModelWithLimits;
  readonly registry: ToolRegistry;
  /** Its system prompt (default: the default system prompt). */
  readonly system?: string;
}

/** How a handoff tool is named, and what the target is shown of the conversation. */
export interface HandoffOptions {
  /** The tool's name (default `transfer_to_<name>`). */
  readonly toolName?: string;
  /**
   * What the target sees of the conversation before it (after its own system prompt): given the
   * messages after the run's system message, it returns the ones to show. What it returns is
   * logged with the handoff, so replay and fork never call it; a call left without its result, a
   * result without its call, or reasoning without its call is dropped from it (see `pairedCalls`).
   */
  readonly inputFilter?: (messages: readonly Message[]) => Message[];
}

/** What a handoff tool's performer holds: the agent it hands to, and its filter. */
export interface HandoffTarget {
  readonly agent: HandoffAgent;
  readonly inputFilter?: HandoffOptions["inputFilter"];
}

const NO_PARAMETERS = { type: "object", properties: {} } as const;

/**
 * A tool whose call gives the conversation to `agent`: the call is answered at once (`transferred
 * to <name>`) and logged as `handoff { callId, from, to }` once every call of the reply has its
 * result; from the next model call on, `agent`'s model answers, with its tools and system prompt,
 * in the same run — the same log, step limit, token and cost budgets, approvals and guardrails. In
 * a reply with several handoff calls the first wins and the others are answered with `ERROR:`.
 * Throws now for an agent without a valid name, model or registry.
 */
export function handoff(agent: HandoffAgent, options: HandoffOptions = {}): Tool<Record<string, never>> {
  checkAgent(agent);
  const { toolName = `transfer_to_${agent.name}`, inputFilter } = options;
  if (inputFilter !== undefined && typeof inputFilter !== "function") {
    throw new TypeError(`inputFilter must be a function; got ${describeValue(inputFilter, true)}`);
  }
  const about = agent.description === undefined ? "." : `: ${agent.description}`;
  const target: HandoffTarget = inputFilter === undefined ? { agent } : { agent, inputFilter };
  return tool({
    name: toolName,
    description: `Hand the conversation over to the agent ${agent.name}${about}`,
    parameters: NO_PARAMETERS,
    execute: () => {
      throw new Error(`${toolName} hands the conversation over only within a run`);
    },
    [PERFORMER]: { kind: "handoff", target },
  }) as unknown as Tool<Record<string, never>>;
}

function checkAgent(agent: HandoffAgent): void {
  if (agent === null || typeof agent !== "object")
    throw new TypeError("a handoff needs an agent { name, model, registry }");
  if (typeof agent.name !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(agent.name)) {
    throw new TypeError(
      `an agent's name must be 1-64 letters, digits, '_' or '-'; got ${describeValue(agent.name, true)}`,
    );
  }
  if (typeof agent.model !== "function") throw new TypeError(`agent '${agent.name}' needs a model (a function)`);
  if (!(agent.registry instanceof ToolRegistry)) throw new TypeError(`agent '${agent.name}' needs a ToolRegistry`);
  for (const key of ["system", "description"] as const) {
    if (agent[key] !== undefined && typeof agent[key] !== "string") {
      throw new TypeError(`agent '${agent.name}': ${key} must be a string`);
    }
  }
}

/** The target of the handoff tool `name` of `registry`, or undefined for any other tool. */
export function targetOf(registry: ToolRegistry, name: string): HandoffTarget | undefined {
  const performer = registry.performerOf(name);
  return performer?.kind === "handoff" ? (performer.target as HandoffTarget) : undefined;
}

/** One agent of a run with handoffs, as its driver needs it: the model that answers for it, and its tools. */
export interface RunAgent {
  readonly name: string;
  readonly model: ModelWithLimits;
  readonly registry: ToolRegistry;
  readonly system: string;
}

/**
 * The agents of a run, by name: the one it starts with and every agent its handoff tools reach,
 * transitively. A resumed or continued run finds them the same way, from the model and registry of
 * the agent it started with: nothing but names is logged. Undefined for a registry without handoff
 * tools. The starting agent's name (and system prompt) is the one given, else the one a handoff
 * tool gives the agent of this very registry, else `agent` (and the default system prompt).
 * Throws a `RangeError` for two agents of one name.
 */
export function runAgents(
  start: Omit<RunAgent, "name" | "system"> & {
    readonly name?: string | undefined;
    readonly system?: string | undefined;
  },
): ReadonlyMap<string, RunAgent> | undefined {
  const { registry } = start;
  if (!registry.hasPerformer("handoff")) return undefined;
  const targets: HandoffAgent[] = [];
  const walked = new Set<ToolRegistry>([registry]);
  const walk = (from: ToolRegistry) => {
    for (const { name } of from.specs()) {
      const target = targetOf(from, name)?.agent;
      if (target === undefined) continue;
      targets.push(target);
      if (walked.has(target.registry)) continue;
      walked.add(target.registry);
      walk(target.registry);
    }
  };
  walk(registry);
  const itself = targets.find((target) => target.registry === registry);
  if (start.name !== undefined && itself !== undefined && itself.name !== start.name) {
    throw new RangeError(
      `the agent the run starts with is named '${start.name}', but a handoff to it names it '${itself.name}'`,
    );
  }
  const name = start.name ?? itself?.name ?? "agent";
  const system = start.system ?? itself?.system ?? DEFAULT_SYSTEM;
  const first: RunAgent = { name, model: start.model, registry, system };
  const agents = new Map<string, RunAgent>([[first.name, first]]);
  for (const target of targets) {
    const known = agents.get(target.name);
    if (known !== undefined && known.registry !== target.registry) {
      throw new RangeError(`two agents are named '${target.name}': each agent of a run needs a name of its own`);
    }
    if (known !== undefined) continue;
    const system = target.system ?? DEFAULT_SYSTEM;
    agents.set(target.name, { name: target.name, model: target.model, registry: target.registry, system });
  }
  return agents;
}

/**
 * Performs a handoff: the target's view of the conversation, as its handoff tool's `inputFilter`
 * leaves it (every call paired with its result), or the whole conversation without a filter.
 * Throws a `TypeError` for a filter that returns something no conversation can hold.
 */
export function performHandoff(
  request: HandOffRequest,
  registry: ToolRegistry,
  transcript: Transcript,
): EventAnswer<HandoffEvent> {
  const { call, from, to } = request;
  const event: HandoffEvent = { type: "handoff", callId: call.id, from, to };
  const filter = targetOf(registry, call.name)?.inputFilter;
  if (filter === undefined) return answerOf(event);
  const given: unknown = filter(messagesOf(transcript).slice(1));
  if (!Array.isArray(given)) {
    throw new TypeError(
      `the inputFilter of ${call.name} must return a list of messages; got ${describeValue(given, true)}`,
    );
  }
  const messages = checkHistory(pairedCalls(given as Message[]));
  if (typeof messages === "string") {
    throw new TypeError(`the inputFilter of ${call.name} returned a list no conversation can hold: ${messages}`);
  }
  return answerOf({ ...event, messages });
}
