import type { AgentResult, Pricing, StoredEvent, ToolCall } from "../../data/index.js";
import { EventLogError } from "../../log/index.js";
import type { ArgsOf, Tool, ToolOptions, ToolSchema } from "../../tools/index.js";
import { describeSafely, PERFORMER, type ToolRegistry, tool } from "../../tools/index.js";
import { type ChildStart, type ChildTool, childToolOf } from "../children/index.js";
import {
  type AgentOptions,
  type ModelWithLimits,
  resolveLimits,
  resolvePrices,
  resolveSettings,
  unpricedNames,
} from "../options/index.js";
import { resolveTurn, type TurnOptions } from "../performers/index.js";
import { resumeChild } from "./resume.js";
import { startRun } from "./run-agent.js";

/** The parameters of an agent tool that says none: one required `task` string. */
export const AGENT_TASK_PARAMETERS = {
  type: "object",
  properties: { task: { type: "string", description: "What the agent should do, in full: it sees nothing else." } },
  required: ["task"],
} as const;

/** An agent tool: a child agent (its model, tools and options) that the parent's model calls as a tool. */
export interface AgentToolDefinition<P extends ToolSchema = typeof AGENT_TASK_PARAMETERS> extends ToolOptions {
  /** 1-64 letters, digits, `_` or `-`. */
  readonly name: string;
  readonly description: string;
  readonly model: ModelWithLimits;
  readonly registry: ToolRegistry;
  /** The child's system prompt, limits and policies, and its answer's `output` schema and guardrails. */
  readonly options?: AgentOptions & TurnOptions;
  /** What the parent's model sends (default: `{ task: string }`, required). */
  readonly parameters?: P;
  /** The child's task from the call's arguments (default: `args.task`). */
  readonly task?: (args: ArgsOf<P>) => string;
}

/**
 * A tool whose call runs another agent as a child run, with its own message list, system prompt,
 * tools and limits: its observation is the child's answer (its `output` as JSON when it has one),
 * and any other end an `ERROR:` naming the status. Within a run the child spends at most what the
 * parent has left (its tokens count in the parent's), pauses the parent when one of its calls waits
 * for a decision (chained id `<parent call id>/<child call id>`), is cancelled with the parent, and
 * with a store keeps its own log, resumed with the parent's. Throws now for options `runAgent` refuses.
 */
export function agentTool<const P extends ToolSchema = typeof AGENT_TASK_PARAMETERS>(
  definition: AgentToolDefinition<P>,
): Tool<ArgsOf<P>> {
  const { name, description, model, registry, options = {}, parameters, task, ...toolOptions } = definition;
  // Checked now, as runAgent would check them, so that a bad option never fails a parent mid-run.
  resolveSettings("", model, registry, options);
  resolveTurn(options);
  const taskOf = (args: ArgsOf<P>): string => {
    const text = task === undefined ? (args as { task?: unknown }).task : task(args);
    if (typeof text !== "string") throw new TypeError("the agent's task must be a string");
    return text;
  };
  const run = (start: ChildStart): Promise<AgentResult> =>
    performChild({ model, registry, options }, taskOf(start.call.args as ArgsOf<P>), start);
  const problem = (call: ToolCall): string | null => {
    try {
      taskOf(call.args as ArgsOf<P>);
      return null;
    } catch (error) {
      return describeSafely(error);
    }
  };
  const { tokenBudget } = resolveLimits(options);
  const costBudget = options.costBudget ?? Number.POSITIVE_INFINITY;
  const { maxResultChars, timeoutMs } = toolOptions;
  const unpriced = (inherited: Pricing | undefined): string[] => {
    const pricing = options.pricing ?? inherited;
    if (pricing === undefined) return [];
    const { prices } = resolvePrices({ ...options, pricing, costBudget: undefined }, model);
    const own = prices === undefined ? [] : [...prices.models, ...(prices.summarizer ? [prices.summarizer] : [])];
    const children = registry.specs().flatMap((spec) => childToolOf(registry, spec.name)?.unpriced(pricing) ?? []);
    return [...unpricedNames(own), ...children];
  };
  const agent = { model, registry, options, task: (call: ToolCall) => taskOf(call.args as ArgsOf<P>) };
  const child: ChildTool = {
    name,
    agent,
    tokenBudget,
    costBudget,
    unpriced,
    maxResultChars,
    timeoutMs,
    problem,
    perform: run,
  };
  return tool({
    name,
    description,
    parameters: (parameters ?? AGENT_TASK_PARAMETERS) as P,
    // Called outside a run (`registry.execute`): the child runs on its own, with no store and no parent.
    execute: async (args: ArgsOf<P>, context) => {
      const result = await startRun(taskOf(args), model, registry, { ...options, signal: context.signal });
      if (result.status !== "done") throw new Error(`the agent ended with status ${result.status}`);
      return result.output ?? result.answer;
    },
    ...toolOptions,
    [PERFORMER]: { kind: "agent", child },
  });
}

/** Resumes the child from its log when the store has one (nothing logged is done again), else starts it. */
async function performChild(
  child: Pick<AgentToolDefinition, "model" | "registry" | "options">,
  task: string,
  start: ChildStart,
): Promise<AgentResult> {
  const { model, registry, options = {} } = child;
  const { store, childRunId, parentRunId, approve, signal, decisions, answers, onEvent } = start;
  const ports = { approve, signal, onEvent, fallbackModels: options.fallbackModels };
  const logged = store === undefined || childRunId === undefined ? [] : await store.read(childRunId);
  if (store !== undefined && childRunId !== undefined && logged.length > 0) {
    checkOwnChild(logged[0], childRunId, parentRunId, start.call.id);
    const turn = { output: options.output, guardrails: options.guardrails };
    const summarizer = options.compaction?.summarizer;
    const resumeOptions = { ...ports, ...turn, store, ...(summarizer === undefined ? {} : { summarizer }) };
    return resumeChild(childRunId, model, registry, resumeOptions, decisions, answers);
  }
  const link =
    childRunId === undefined || parentRunId === undefined ? undefined : { runId: parentRunId, callId: start.call.id };
  const where = childRunId === undefined ? {} : { store, runId: childRunId };
  const pricing = options.pricing ?? start.pricing;
  const money = {
    ...(pricing === undefined ? {} : { pricing }),
    ...(start.costBudget === Number.POSITIVE_INFINITY ? {} : { costBudget: start.costBudget }),
  };
  const limits = { tokenBudget: start.tokenBudget, ...money };
  return startRun(task, model, registry, { ...options, ...ports, ...where, ...limits }, link);
}

/**
 * A run already in the store under a child's id is that child only if its `run.started` names this
 * parent and call: another run's log is never taken over (its answer would reach this parent's model).
 */
function checkOwnChild(
  first: StoredEvent | undefined,
  childRunId: string,
  parentRunId: string | undefined,
  callId: string,
): void {
  const parent = first?.type === "run.started" ? first.parent : undefined;
  if (parent !== undefined && parent.runId === parentRunId && parent.callId === callId) return;
  const whose =
    parent === undefined ? "a run of its own" : `the child of call '${parent.callId}' of run '${parent.runId}'`;
  throw new EventLogError(
    `run '${childRunId}' is already in the store as ${whose}, not as the child of call '${callId}' of run '${parentRunId}': ` +
      "its log is not taken over; remove it, or give this run another id",
    { runId: childRunId, position: 0 },
  );
}
