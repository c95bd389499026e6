/**
 * The CLI's one door into `@agentloop/core`: every name the CLI uses from it comes through here,
 * so that a change in core's exports (names moving between the root and its subpath exports) is
 * adapted in this file. Reading a folded snapshot's context is done here too, for the same reason.
 */
import type { Decision, EventStore, Message, ToolCall, ToolSpec } from "@agentloop/core";
import {
  type AgentContext,
  type AgentMachineInput,
  type AgentSnapshot,
  agentMachine,
  pendingRequests,
  RunFold,
  type RunFoldOptions,
  type RunSettings,
} from "@agentloop/core/machine";
import type { StoredEvent } from "@agentloop/core/store";

export {
  AgentloopError,
  type AgentResult,
  type AgentStatus,
  type AgentStreamEvent,
  agentMachine,
  continueAgent,
  type Decision,
  EventLogError,
  type EventStore,
  forkRun,
  MemoryEventStore,
  type Message,
  ModelError,
  type ModelReply,
  resumeAgent,
  runAgent,
  type ToolCall,
  ToolRegistry,
  ToolSchemaError,
  type ToolSpec,
} from "@agentloop/core";
export { checkReply, isErrorMessage } from "@agentloop/core/adapter";
export { isRunId, JsonlEventStore } from "@agentloop/core/jsonl-store";
export {
  type AgentEvent,
  type AgentMachineInput,
  type AgentSnapshot,
  type ModelWithLimits,
  outcomeOf,
  RunFold,
  type RunFoldOptions,
  type RunSettings,
} from "@agentloop/core/machine";
export {
  chainHash,
  EVENT_LOG_SCHEMA_VERSION,
  type LogFlags,
  logFlags,
  parseEventLog,
  type RunEvent,
  type RunOutcome,
  type RunSummary,
  runHashSeed,
  type StoredEvent,
} from "@agentloop/core/store";
export { asks, final, type ScriptedModel, scriptedModel, toolCall } from "@agentloop/core/testing";

/** The options of `runAgent` the CLI passes on. */
export type RunOptions = NonNullable<Parameters<typeof import("@agentloop/core").runAgent>[3]>;
/** The options of `resumeAgent` the CLI passes on. */
export type ResumeOptions = Parameters<typeof import("@agentloop/core").resumeAgent>[3];

/** A store that can drop a torn last entry (the JSONL and SQLite stores can). */
export type RepairableStore = EventStore & { repair(runId: string): Promise<number> };

/** Counters of a folded run: over the whole run, and from the start of its current turn (the limits count per turn). */
export interface Tally {
  readonly steps: number;
  readonly tokens: number;
  readonly turnSteps: number;
  readonly turnTokens: number;
  readonly maxSteps: number;
  readonly tokenBudget: number;
}

/** Steps and tokens of a snapshot, with the limits they count against. */
export function tallyOf(snapshot: AgentSnapshot): Tally {
  const { steps, tokens, maxSteps, tokenBudget, turnStart } = snapshot.context;
  return {
    steps,
    tokens,
    turnSteps: steps - turnStart.steps,
    turnTokens: tokens - turnStart.tokens,
    maxSteps,
    tokenBudget,
  };
}

/** The messages a snapshot's list holds from position `from` on, in O(new messages). */
export function messagesSince(snapshot: AgentSnapshot, from: number): { messages: Message[]; length: number } {
  const { transcript } = snapshot.context;
  return { messages: transcript.items.slice(from, transcript.length), length: transcript.length };
}

/** The calls a snapshot waits on a decision for, in call order (several when calls run at once). */
export function waitingForDecision(snapshot: AgentSnapshot): ToolCall[] {
  return pendingRequests(snapshot).flatMap((request) => (request.type === "requestDecision" ? [request.call] : []));
}

/** The machine's input for a run's first turn, from its `run.started`. */
export function startInput(started: StartEvent, settings: RunSettings = started.settings): AgentMachineInput {
  return { settings, schemaVersion: started.schemaVersion };
}

/** The machine's input for a conversation's next turn: the finished turn's snapshot, and the user's message. */
export function nextTurnInput(start: AgentMachineInput, finished: AgentSnapshot, message: string): AgentMachineInput {
  const context: AgentContext = finished.context;
  return { ...start, continues: { context, message } };
}

/** What a resume checks the registry against: the logged tool specs and the tools that need approval. */
export function loggedTools(settings: RunSettings): { specs: readonly ToolSpec[]; approval: readonly string[] } {
  return { specs: settings.tools, approval: settings.approvalRequired ?? [] };
}

/** A fold of a run's log through `machine` (or an instrumented copy of it), with core's checks. */
export function foldOf(options: RunFoldOptions): RunFold {
  return new RunFold(options);
}

/** The machine the CLI folds logs through, and draws. */
export const machine: typeof agentMachine = agentMachine;

/** The event that starts a run's log. */
export type StartEvent = Extract<StoredEvent, { type: "run.started" }>;

/** Decisions by call id, as `resumeAgent` takes them. */
export type Decisions = Readonly<Record<string, Decision>>;

/** Model type used by the CLI's setup. */
export type CliModel = import("@agentloop/core/machine").ModelWithLimits;
