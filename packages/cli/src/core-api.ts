/**
 * The CLI's one door into `@agentloop/core`: every name the CLI uses from it comes through here,
 * so that a change in core's exports (names moving to subpath exports) is adapted in this file.
 * Reading a folded snapshot's context is done here too, for the same reason.
 */
import {
  type AgentResult,
  type AgentSnapshot,
  agentMachine,
  type Decision,
  type EventStore,
  type Message,
  type ModelWithLimits,
  pendingRequest,
  type RunSettings,
  type StoredEvent,
  type ToolCall,
  type ToolSpec,
} from "@agentloop/core";

export {
  AgentloopError,
  type AgentResult,
  type AgentSnapshot,
  agentMachine,
  asks,
  checkReply,
  type Decision,
  EVENT_LOG_SCHEMA_VERSION,
  EventLogError,
  type EventStore,
  final,
  forkRun,
  MemoryEventStore,
  type Message,
  ModelError,
  type ModelReply,
  type ModelWithLimits,
  type RunSettings,
  type RunSummary,
  resumeAgent,
  runAgent,
  type ScriptedModel,
  type StoredEvent,
  scriptedModel,
  type ToolCall,
  ToolRegistry,
  ToolSchemaError,
  type ToolSpec,
  toolCall,
} from "@agentloop/core";
export { isRunId, JsonlEventStore } from "@agentloop/core/jsonl-store";

/** The options of `runAgent` the CLI passes on. */
export type RunOptions = NonNullable<Parameters<typeof import("@agentloop/core").runAgent>[3]>;
/** The options of `resumeAgent` the CLI passes on. */
export type ResumeOptions = Parameters<typeof import("@agentloop/core").resumeAgent>[3];

/** A store that can drop a torn last entry (the JSONL and SQLite stores can). */
export type RepairableStore = EventStore & { repair(runId: string): Promise<number> };

/** Counters of a folded run. */
export interface Tally {
  readonly steps: number;
  readonly tokens: number;
  readonly maxSteps: number;
  readonly tokenBudget: number;
}

/** Steps and tokens of a snapshot, with the limits they count against. */
export function tallyOf(snapshot: AgentSnapshot): Tally {
  const { steps, tokens, maxSteps, tokenBudget } = snapshot.context;
  return { steps, tokens, maxSteps, tokenBudget };
}

/** The messages a snapshot's list holds from position `from` on, in O(new messages). */
export function messagesSince(snapshot: AgentSnapshot, from: number): { messages: Message[]; length: number } {
  const { transcript } = snapshot.context;
  return { messages: transcript.items.slice(from, transcript.length), length: transcript.length };
}

/** The `AgentResult` of a snapshot that reached a final state, or `null`. */
export function resultOf(snapshot: AgentSnapshot): AgentResult | null {
  return snapshot.status === "done" ? (snapshot.output ?? null) : null;
}

/** The calls a snapshot waits on a decision for (the machine asks for one at a time). */
export function waitingForDecision(snapshot: AgentSnapshot): ToolCall[] {
  const request = pendingRequest(snapshot);
  return request?.type === "requestDecision" ? [request.call] : [];
}

/** The calls a snapshot waits to run (their `tool.started` may come next). */
export function waitingToRun(snapshot: AgentSnapshot): ToolCall[] {
  const request = pendingRequest(snapshot);
  return request?.type === "runTool" ? [request.call] : [];
}

/** The calls of the last reply that need a decision and have none yet, in call order (decisions may be given ahead). */
export function undecidedCalls(snapshot: AgentSnapshot): ToolCall[] {
  const { pendingCalls, approvalRequired, decisions } = snapshot.context;
  return pendingCalls.filter((call) => approvalRequired.includes(call.name) && !Object.hasOwn(decisions, call.id));
}

/** What a resume checks the registry against: the logged tool specs and the tools that need approval. */
export function loggedTools(settings: RunSettings): { specs: readonly ToolSpec[]; approval: readonly string[] } {
  return { specs: settings.tools, approval: settings.approvalRequired ?? [] };
}

/** The machine the CLI folds logs through, and draws. */
export const machine = agentMachine;

/** The event that starts a run's log. */
export type StartEvent = Extract<StoredEvent, { type: "run.started" }>;

/** Decisions by call id, as `resumeAgent` takes them. */
export type Decisions = Readonly<Record<string, Decision>>;

/** Model type used by the CLI's setup. */
export type CliModel = ModelWithLimits;
