/**
 * The CLI's one door into `@agentloop/core`: every name the CLI uses from it comes through here,
 * so that a change in core's exports (names moving between the root and its subpath exports) is
 * adapted in this file. A run is read through core's fold and its position query (`RunFold`,
 * `positionOf`), never through the machine's context.
 */
import type { Decision, EventStore, ToolSpec } from "@agentloop/core";
import { agentMachine, RunFold, type RunFoldOptions, type RunSettings } from "@agentloop/core/machine";
import type { StoredEvent } from "@agentloop/core/store";

export {
  AGENT_STATUSES,
  AgentloopError,
  type AgentResult,
  type AgentStatus,
  type AgentStreamEvent,
  agentMachine,
  agentTool,
  chainCallId,
  checkPricing,
  contentText,
  continueAgent,
  type Decision,
  EventLogError,
  type EventStore,
  escapeCallId,
  forkRun,
  MemoryEventStore,
  type MemoryOptions,
  type Message,
  type MessageContent,
  ModelError,
  type ModelReply,
  memoryTools,
  type PendingQuestion,
  readTree,
  resumeAgent,
  runAgent,
  type Tool,
  type ToolCall,
  ToolRegistry,
  ToolSchemaError,
  type ToolSpec,
  TREE_DEPTH_LIMIT,
  type TreeChild,
  treeListing,
} from "@agentloop/core";
export { checkReply, isErrorMessage } from "@agentloop/core/adapter";
export { isRunId, JsonlEventStore } from "@agentloop/core/jsonl-store";
export {
  type AgentEvent,
  type FoldMicrostep,
  type ModelWithLimits,
  outcomeOf,
  positionOf,
  RunFold,
  type RunFoldOptions,
  type RunPosition,
  type RunSettings,
  shownAtStep,
  summaryMessage,
} from "@agentloop/core/machine";
export {
  checkTenantBudget,
  frontDoor,
  mayUse,
  type Principal,
  runsFor,
  type ServeOptions,
} from "@agentloop/core/serve";
export type { SpendLimits } from "@agentloop/core/store";
export {
  type BlobSource,
  blobRefsOf,
  chainHash,
  type EndStatus,
  EVENT_LOG_SCHEMA_VERSION,
  type LogFlags,
  logFlags,
  parseEventLog,
  RUN_EVENT_TYPES,
  type RunEvent,
  type RunOutcome,
  type RunSummary,
  restoreBlobs,
  runHashSeed,
  type StoredEvent,
  startedOf,
  toolFailureOf,
} from "@agentloop/core/store";
export {
  asks,
  final,
  makeWeatherRegistry,
  type ScriptedModel,
  scriptedModel,
  toolCall,
  WEATHER_TASK,
  weatherScript,
} from "@agentloop/core/testing";

/** The options of `runAgent` the CLI passes on. */
export type RunOptions = NonNullable<Parameters<typeof import("@agentloop/core").runAgent>[3]>;
/** The options of `resumeAgent` the CLI passes on. */
export type ResumeOptions = Parameters<typeof import("@agentloop/core").resumeAgent>[3];

/** A store that can drop a torn last entry (the JSONL and SQLite stores can). */
export type RepairableStore = EventStore & { repair(runId: string): Promise<number> };

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
