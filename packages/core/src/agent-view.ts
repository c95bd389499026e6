import type { StateValue } from "xstate";
import { pendingApprovals } from "./agent-decisions.js";
import type { AgentSnapshot } from "./agent-machine.js";
import type { ToolCall } from "./types.js";

/** What a parent sees of a running agent: its counters and the calls that wait for a decision. */
export interface AgentView {
  /** The run's id in its store; `null` for a run without a store. */
  readonly runId: string | null;
  /** Model calls made. */
  readonly steps: number;
  /** Tokens spent, every prompt plus every reply. */
  readonly tokens: number;
  /** The calls of the last reply that wait for a decision, in call order. */
  readonly pendingApprovals: readonly ToolCall[];
}

/** The agent machine's state value (as the Stately inspector lights it) and the view, from one of its snapshots. */
export function viewOf(snapshot: AgentSnapshot, runId: string | null): { value: StateValue; context: AgentView } {
  const { steps, tokens } = snapshot.context;
  return {
    value: snapshot.value,
    context: { runId, steps, tokens, pendingApprovals: pendingApprovals(snapshot.context) },
  };
}

/** Whether two views differ in anything a parent would act on. */
export function isNewView(
  before: { value: StateValue | null; context: AgentView },
  after: { value: StateValue; context: AgentView },
): boolean {
  const ids = (view: AgentView) => view.pendingApprovals.map((call) => call.id).join("\n");
  return (
    JSON.stringify(before.value) !== JSON.stringify(after.value) ||
    before.context.steps !== after.context.steps ||
    before.context.tokens !== after.context.tokens ||
    ids(before.context) !== ids(after.context)
  );
}

/** The keys of the actor's input that are data (kept in its persisted snapshot); the rest are code, which a restore gets again. */
const DATA_KEYS = [
  "task",
  "runId",
  "system",
  "history",
  "maxSteps",
  "tokenBudget",
  "replyReserve",
  "repeatLimit",
  "onRepeatedCall",
  "toolConcurrency",
  "toolTimeoutMs",
  "maxResultChars",
] as const;

/** Of those, the limits: numbers, where `Infinity` means no limit. */
const LIMIT_KEYS: ReadonlySet<string> = new Set([
  "maxSteps",
  "tokenBudget",
  "replyReserve",
  "repeatLimit",
  "toolConcurrency",
  "toolTimeoutMs",
  "maxResultChars",
]);

/** The data part of the actor's input, as kept in a persisted snapshot: JSON, with `Infinity` spelled out. */
export type AgentInputData = Readonly<Record<string, unknown>>;

/** The data of an input, JSON-safe: a limit of `Infinity` (which JSON would turn into `null`) is kept as the string `"Infinity"`. */
export function dataOf(input: Readonly<Record<string, unknown>>): AgentInputData {
  const data: Record<string, unknown> = {};
  for (const key of DATA_KEYS) {
    const value = input[key];
    if (value === undefined) continue;
    data[key] = value === Number.POSITIVE_INFINITY ? "Infinity" : value;
  }
  return data;
}

/** The input's data back from a persisted snapshot: `"Infinity"` is the number again. */
export function reviveData(data: AgentInputData): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const key of DATA_KEYS) {
    const value = data[key];
    if (value === undefined) continue;
    input[key] = value === "Infinity" && LIMIT_KEYS.has(key) ? Number.POSITIVE_INFINITY : value;
  }
  return input;
}
