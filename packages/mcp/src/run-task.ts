import { type AgentResult, type PendingQuestion, replayRun, type ToolCall } from "@agentloop/core";
import { positionOf } from "@agentloop/core/machine";
import type { StoredEvent } from "@agentloop/core/store";

/** A task's status, as the MCP Tasks extension (protocol revision 2025-11-25) names them. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A task as `tasks/get` answers it: the run's id is the task's id. */
export interface AgentTask {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** When the run started (ISO 8601). */
  readonly createdAt: string;
  /** When the run's last event was logged (ISO 8601). */
  readonly lastUpdatedAt: string;
  /** Milliseconds the task is kept after it ends; `null`: as long as the store keeps the run. */
  readonly ttl: null;
  /** Milliseconds a client is asked to wait between two `tasks/get`. */
  readonly pollInterval: number;
}

/** Where a run stands, read from its log: going, waiting for decisions on `calls` and answers to `questions`, or ended with `result`. */
export type RunState =
  | { readonly kind: "going" }
  | { readonly kind: "waiting"; readonly calls: readonly ToolCall[]; readonly questions: readonly PendingQuestion[] }
  | { readonly kind: "ended"; readonly result: AgentResult };

/** Where the run of `events` stands (pure: the log is folded, nothing runs). `events` must not be empty. */
export function runStateOf(runId: string, events: readonly StoredEvent[]): RunState {
  const replay = replayRun(events, { runId });
  if (replay.result !== null) return { kind: "ended", result: replay.result };
  const { waiting: calls, questions } = positionOf(replay.snapshot);
  return calls.length > 0 || questions.length > 0 ? { kind: "waiting", calls, questions } : { kind: "going" };
}

/** The task status a run's state shows: a run that ended other than `done` or `cancelled` has `failed`. */
export function taskStatusOf(state: RunState): TaskStatus {
  if (state.kind === "going") return "working";
  if (state.kind === "waiting") return "input_required";
  if (state.result.status === "done") return "completed";
  return state.result.status === "cancelled" ? "cancelled" : "failed";
}

/** What a task's view needs beside the log: when it was asked for, and an error its run threw that the log cannot show. */
export interface TaskExtras {
  readonly pollInterval: number;
  /** Used while the run has logged nothing yet (ISO 8601). */
  readonly startedAt: string;
  readonly failure?: string;
}

/**
 * The part of a run's log that is its task: up to the run's first end. A task is the request that
 * made it, and a task in a terminal status never changes (MCP, Tasks: "Task Status Lifecycle"), so
 * a later turn of its conversation (`tools/call` with the task's id as `runId`) is not the task's.
 */
export function taskEvents(events: readonly StoredEvent[]): readonly StoredEvent[] {
  const end = events.findIndex(isEnd);
  return end === -1 ? events : events.slice(0, end + 1);
}

/** The result the task of run `runId` ended with, from its log; undefined while it has not ended (pure). */
export function endedTask(runId: string, events: readonly StoredEvent[]): AgentResult | undefined {
  const task = taskEvents(events);
  const last = task.at(-1);
  if (last === undefined || !isEnd(last)) return undefined;
  const state = runStateOf(runId, task);
  return state.kind === "ended" ? state.result : undefined;
}

function isEnd(event: StoredEvent): boolean {
  return event.type === "run.finished" || event.type === "run.anchored";
}

/** The task of run `runId` from its log (pure): what its log says up to the run's first end. */
export function taskOf(runId: string, log: readonly StoredEvent[], extras: TaskExtras): AgentTask {
  const events = taskEvents(log);
  const { pollInterval, startedAt } = extras;
  // An error a later turn of the conversation threw is not the ended task's.
  const failure = events.length > 0 && isEnd(events.at(-1) as StoredEvent) ? undefined : extras.failure;
  const createdAt = events[0]?.at ?? startedAt;
  const lastUpdatedAt = events.at(-1)?.at ?? createdAt;
  const base = { taskId: runId, createdAt, lastUpdatedAt, ttl: null, pollInterval };
  if (failure !== undefined) return { ...base, status: "failed", statusMessage: failure };
  if (events.length === 0) return { ...base, status: "working" };
  const state = runStateOf(runId, events);
  const status = taskStatusOf(state);
  if (state.kind === "waiting") return { ...base, status, statusMessage: waitingFor(state) };
  if (state.kind === "ended" && status === "failed") {
    return { ...base, status, statusMessage: `the run ended ${state.result.status}` };
  }
  return { ...base, status };
}

/** What a waiting task's status message says: the calls waiting for approval, then each question asked. */
function waitingFor(state: Extract<RunState, { kind: "waiting" }>): string {
  const parts = [];
  if (state.calls.length > 0) parts.push(`waiting for approval of ${state.calls.map((call) => call.name).join(", ")}`);
  for (const { question } of state.questions) parts.push(`waiting for an answer to: ${question}`);
  return parts.join("; ");
}
