import {
  type AgentResult,
  type Approver,
  escapeCallId,
  type Pricing,
  type ToolCall,
  type ToolRegistry,
} from "@agentloop/core";
import {
  type ChildAgent,
  ChildCalls,
  type ChildPort,
  childRunIdOf,
  childToolOf,
  type ParentContext,
  type ToolAnswer,
  UNANSWERED,
} from "@agentloop/core/driver";
import type { AgentOptions, ModelWithLimits } from "./core-port.js";
import type { ChildLink, ChildRunRequest } from "./types.js";

/** The agent a workflow's run runs: the root's (the workflow's own options) or an agent tool's, found by its path. */
export interface RunAgent extends Pick<ChildAgent, "registry"> {
  readonly model: ModelWithLimits;
  readonly options: ChildAgent["options"];
}

/**
 * The agent the agent tools named by `tools` run, from the root's registry down; throws a
 * `TypeError` when a name is not an agent tool there (the workflow's registry changed under a run).
 */
export function agentAt(root: RunAgent, tools: readonly string[]): RunAgent {
  let agent = root;
  for (const name of tools) {
    const child = childToolOf(agent.registry, name);
    if (child === undefined) throw new TypeError(`'${name}' is not an agent tool of the workflow's registry`);
    agent = child.agent;
  }
  return agent;
}

/** What a child run's options are: its agent's own, with its share of the parent's budget and the parent's pricing. */
export function childOptions(agent: RunAgent, link: ChildLink): AgentOptions {
  const pricing = agent.options.pricing ?? link.pricing;
  return {
    ...agent.options,
    tokenBudget: link.tokenBudget ?? Number.POSITIVE_INFINITY,
    ...(pricing === undefined ? {} : { pricing }),
    ...(link.costBudget === null ? {} : { costBudget: link.costBudget }),
  };
}

/** The root's approver, shown a child's calls by chained id (`<call id>/<child call id>`), as `runAgent` shows them. */
export function chainedApprover(approve: Approver | undefined, link: ChildLink | null): Approver | undefined {
  if (approve === undefined || link === null) return approve;
  return (call) => approve({ ...call, id: `${link.chain}/${escapeCallId(call.id)}` });
}

/** A child's run about to start: the workflow's key and what it is submitted with. */
export interface ChildStart {
  readonly childRunId: string;
  readonly request: ChildRunRequest;
}

/**
 * The children of a workflow's run: each call of an agent tool runs its child as a workflow of its
 * own (keyed `<run id>.<call id>`, the id `runAgent` gives the child's log), which the journaled
 * steps call; its share of the budget is reserved as `runAgent` reserves it, out of what the run
 * has left when the call starts, and given back once the machine has counted what the child spent.
 */
export class ChildWorkflows implements ChildPort {
  readonly #calls: ChildCalls;
  readonly #registry: ToolRegistry;
  readonly #runId: string;
  readonly #link: ChildLink | null;
  readonly #pricing: Pricing | undefined;

  constructor(
    runId: string,
    agent: RunAgent,
    link: ChildLink | null,
    context: ParentContext,
    pricing: Pricing | undefined,
  ) {
    this.#runId = runId;
    this.#registry = agent.registry;
    this.#link = link;
    this.#pricing = pricing;
    this.#calls = new ChildCalls({ registry: agent.registry, runId, context, pricing });
  }

  childRunIdOf(call: ToolCall): string | undefined {
    return this.runsChild(call) ? childRunIdOf(this.#runId, call.id) : undefined;
  }

  runsChild(call: ToolCall): boolean {
    return this.#calls.runsChild(call);
  }

  /** Why the call makes no task for its child (no child starts: the model is told), or null. */
  problem(call: ToolCall): string | null {
    return childToolOf(this.#registry, call.name)?.problem(call) ?? null;
  }

  /** Answers a call whose arguments make no task; any other runs as a workflow (`start`), never here. */
  perform(call: ToolCall, signal: AbortSignal): ReturnType<ChildPort["perform"]> {
    if (this.problem(call) === null) {
      throw new Error("agentloop/restate: a child run is a workflow call of the journaled steps (a broken invariant)");
    }
    return this.#calls.perform(call, signal);
  }

  settle(callId: string): void {
    this.#calls.settle(callId);
  }

  /** A child on Restate waits for its decisions itself: its parent's call never pauses in it, so none is resumed. */
  resume(_call: ToolCall): ReturnType<ChildPort["resume"]> {
    return UNANSWERED;
  }

  /** The child's run for `call`, its share of the budget reserved now. */
  start(call: ToolCall): ChildStart {
    const { tokenBudget, costBudget } = this.#calls.reserve(call);
    const agent = childToolOf(this.#registry, call.name)?.agent as ChildAgent;
    const chain = this.#link === null ? escapeCallId(call.id) : `${this.#link.chain}/${escapeCallId(call.id)}`;
    const child: ChildLink = {
      tools: [...(this.#link?.tools ?? []), call.name],
      parent: { runId: this.#runId, callId: call.id },
      chain,
      tokenBudget: Number.isFinite(tokenBudget) ? tokenBudget : null,
      costBudget: Number.isFinite(costBudget) ? costBudget : null,
      ...(this.#pricing === undefined ? {} : { pricing: this.#pricing }),
    };
    return { childRunId: childRunIdOf(this.#runId, call.id), request: { task: agent.task(call), child } };
  }

  /** The run's answer to the call, from its child's result, as `runAgent` gives it (the child never pauses here). */
  answer(call: ToolCall, childRunId: string, result: AgentResult): ToolAnswer {
    const answer = this.#calls.answer(call, childRunId, result);
    if (answer.event.type === "tool.paused") throw new Error("agentloop/restate: a child workflow ended paused");
    return answer as ToolAnswer;
  }
}
