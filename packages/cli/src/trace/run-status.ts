import {
  AGENT_STATUSES,
  type AgentStatus,
  type EndStatus,
  type RunEvent,
  type RunSettings,
  TREE_DEPTH_LIMIT,
} from "../core-api.js";
import type { RunTrace } from "./run-trace.js";

/**
 * What every view (`list`, `show`, the report, the studio) calls a run: core's statuses (the end
 * its log records, `awaiting_approval` while a call of its tree waits for a decision, or
 * `awaiting_input` while only questions wait for answers), and three
 * of a log that records no end: `model_failed` when the run gave up on its model (the last
 * attempt failed with no retry and no fallback left: resuming asks the model again), `unfinished`
 * when it was interrupted or is still going, and `refused` when the log cannot be read as a run
 * (it is not JSON, a hash does not hold, an event does not fit the machine).
 */
export type ViewStatus = AgentStatus | "model_failed" | "unfinished" | "refused";

/**
 * Every `ViewStatus` once: core's `refused` (the model refused) and a refused log share the word,
 * and a list of statuses (the studio's filter) names it once.
 */
export const VIEW_STATUSES: readonly ViewStatus[] = [
  ...new Set<ViewStatus>([...AGENT_STATUSES, "model_failed", "unfinished", "refused"]),
];

/** What a run's status is decided from. */
export type StatusOf =
  /** The log cannot be read as a run, for this reason. */
  | { readonly refused: string }
  /** The log ends with `run.finished`: the status it records. */
  | { readonly ended: EndStatus }
  /** The run's log was folded: where it stands, and the calls its tree waits on (its own by default). */
  | {
      readonly result: { readonly status: AgentStatus } | null;
      readonly waiting: readonly unknown[];
      /** The questions it waits on answers for (none when absent). */
      readonly questions?: readonly unknown[];
      readonly state: string;
      readonly settings: Pick<RunSettings, "fallbackModels">;
      /** The last event of the log. */
      readonly last: RunEvent | undefined;
    };

/** A run's status in every view: the one place it is decided. */
export function viewStatus(run: StatusOf): ViewStatus {
  if ("refused" in run) return "refused";
  if ("ended" in run) return run.ended;
  if (run.result !== null) return run.result.status;
  if (run.waiting.length > 0) return "awaiting_approval";
  if ((run.questions?.length ?? 0) > 0) return "awaiting_input";
  if (gaveUpOnModel(run.last, run.state, run.settings)) return "model_failed";
  return "unfinished";
}

/** The status of a folded run, with the calls its tree waits on (its own calls by default). */
export function traceStatus(
  trace: RunTrace,
  waiting: readonly unknown[] = trace.waiting,
  questions: readonly unknown[] = trace.questions,
): ViewStatus {
  return viewStatus({ ...trace, waiting, questions });
}

/**
 * Whether the log ends at a model failure after which the run did not go on: the failed model was
 * the last one to ask (the run's own, or its last fallback), and the machine is not waiting to try
 * it again. Without `retry` and `fallbackModels` a failure is not logged, and the run reads `unfinished`.
 */
function gaveUpOnModel(
  last: RunEvent | undefined,
  state: string,
  settings: Pick<RunSettings, "fallbackModels">,
): boolean {
  if (last?.type !== "model.failed") return false;
  return last.model >= (settings.fallbackModels ?? 0) && !state.endsWith("retryWait");
}

/**
 * The rows with each run that has no end and whose agent-tool child waits for a decision (or whose
 * child's child does) said `awaiting_approval`: it is paused with its child, as `show` and the
 * run's page say. `parentOf` names a row's parent run (undefined for a run no call started).
 */
export function withTreePauses<Row extends { readonly runId: string; readonly status: ViewStatus }>(
  rows: readonly Row[],
  parentOf: (row: Row) => string | undefined,
): Row[] {
  const children = new Map<string, Row[]>();
  for (const row of rows) {
    const parent = parentOf(row);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), row]);
  }
  // The pause a row's tree is in: a decision anywhere in it wins over a question.
  const pauseOf = (row: Row, depth = 0): ViewStatus | null => {
    if (row.status === "awaiting_approval" || row.status === "awaiting_input") return row.status;
    if (row.status !== "unfinished" || depth >= TREE_DEPTH_LIMIT) return null;
    const pauses = (children.get(row.runId) ?? []).map((child) => pauseOf(child, depth + 1));
    if (pauses.includes("awaiting_approval")) return "awaiting_approval";
    return pauses.includes("awaiting_input") ? "awaiting_input" : null;
  };
  return rows.map((row) => {
    const pause = row.status === "unfinished" ? pauseOf(row) : null;
    return pause === null ? row : { ...row, status: pause };
  });
}
