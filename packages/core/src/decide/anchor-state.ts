import type { AgentStatus, AnchorState, RunSettings, StepPrepared } from "../data/index.js";
import { createTranscript, messagesOf } from "../data/index.js";
import { type AgentContext, initialContext, resultOf } from "./agent-context.js";
import { type AgentSnapshot, agentMachine } from "./agent-machine.js";
import { recordPreparation } from "./step-preparation.js";

/**
 * The keys of the context a finished turn carries into the next, kept as JSON by an anchor: every
 * key of `AgentContext` is here, in `FROM_SETTINGS` or in `NOT_CARRIED` (a test holds them to it).
 */
export const CARRIED = [
  "promptCounts",
  "compaction",
  "steps",
  "tokens",
  "turnStart",
  "cost",
  "unpriced",
  "lastCall",
  "status",
  "answer",
  "attempt",
  "output",
  "outputRetries",
  "invalidOutputs",
  "outputValue",
  "guardrails",
  "inputGuarded",
  "guard",
  "guardrail",
  "toolAsks",
  "handoffs",
  "ceiling",
] as const satisfies readonly (keyof AgentContext)[];

/** The keys the run's settings give (`initialContext`): an anchor keeps the settings instead. */
export const FROM_SETTINGS = [
  "maxSteps",
  "tokenBudget",
  "replyReserve",
  "fallbackReserves",
  "summaryReserve",
  "repeatLimit",
  "countUsage",
  "onRepeatedCall",
  "approvalRequired",
  "idempotentTools",
  "repeatableTools",
  "toolConcurrency",
  "schemaVersion",
  "flags",
  "specs",
  "specsTokens",
  "prices",
  "costBudget",
  "retry",
  "prepareSteps",
  "askTools",
  "memory",
] as const satisfies readonly (keyof AgentContext)[];

/**
 * The keys a next turn starts afresh (`nextTurn`): the last reply's calls, its children's pauses,
 * and whether the turn has recalled its memories.
 * The list itself (`transcript`) and what `prepareStep` decided last (`prepared`) are kept in their
 * own form: the messages, and the logged decision.
 */
export const NOT_CARRIED = ["batch", "childPauses", "recalled"] as const satisfies readonly (keyof AgentContext)[];

const FINAL_STATES: Readonly<Record<string, string>> = {
  done: "done",
  step_limit: "stepLimit",
  token_budget: "tokenBudget",
  cost_budget: "costBudget",
  invalid_output: "invalidOutput",
  guardrail_tripped: "guardrailTripped",
  refused: "refused",
  repeated_call: "repeatedCall",
  cancelled: "cancelled",
};

/** The state of a finished turn's context, as an anchor keeps it (plain JSON). */
export function anchorStateOf(context: AgentContext): AnchorState {
  const kept: Record<string, unknown> = {};
  for (const key of CARRIED) kept[key] = context[key];
  kept.prepared = context.prepared?.event ?? null;
  return { messages: messagesOf(context.transcript), context: JSON.parse(JSON.stringify(kept)) };
}

/**
 * The snapshot of the finished machine an anchor stands for: in the final state of its status,
 * with the context the run's settings and the kept state give, and that context's result as output.
 */
export function anchoredSnapshot(settings: RunSettings, schemaVersion: number, state: AnchorState): AgentSnapshot {
  const fresh = initialContext({ settings, schemaVersion });
  const { prepared, ...kept } = state.context as Record<string, unknown>;
  const restored: AgentContext = {
    ...fresh,
    ...(kept as Partial<AgentContext>),
    transcript: createTranscript(state.messages),
    batch: null,
    childPauses: [],
    prepared: null,
  };
  const context =
    prepared === null || prepared === undefined
      ? restored
      : { ...restored, ...recordPreparation(restored, prepared as StepPrepared) };
  const value = FINAL_STATES[(context.status ?? "done") as AgentStatus] ?? "done";
  return agentMachine.resolveState({ value, context, output: resultOf(context) }) as AgentSnapshot;
}
