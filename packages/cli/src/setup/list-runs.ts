import { readdirSync } from "node:fs";
import { join } from "node:path";
import { messageOf } from "../cli-error.js";
import { type EventStore, isRunId, JsonlEventStore, type RunSummary } from "../core-api.js";
import { traceStatus, type ViewStatus, viewStatus, withTreePauses } from "../trace/run-status.js";
import { traceRun } from "../trace/run-trace.js";
import { type TreeRun, treeOrder } from "./run-tree.js";
import { storeError } from "./stores.js";

/** A run as `list` shows it: its place in the tree, its status in every view's words, and why its log is refused. */
export type ListedRun = TreeRun & { readonly status: ViewStatus; readonly refused?: string };

/**
 * The runs of a store, oldest first with each child right after its parent, then the logs that
 * cannot be read as runs. Each log is read whole (every hash checked); a run that has not ended
 * is folded through the machine to tell a pause for a decision or a model given up on from an
 * interrupted run. A log that cannot be read is listed as refused, with the reason, never left
 * out; a file named *.jsonl that is not a regular file is left out, and `onSkip` told why.
 */
export async function listRuns(
  store: EventStore,
  storePath: string,
  onSkip: (skipped: { path: string; reason: string }) => void,
): Promise<ListedRun[]> {
  const skipped = new Set<string>();
  const skip = (entry: { path: string; reason: string }) => {
    skipped.add(entry.path);
    onSkip(entry);
  };
  const listed = store instanceof JsonlEventStore ? store.list({ onSkip: skip }) : store.list();
  const runs = await listed.catch((error: unknown) => {
    throw storeError(error, storePath);
  });
  const tree: ListedRun[] = [];
  for (const run of await treeOrder(store, runs)) tree.push({ ...run, ...(await statusOf(store, run)) });
  const rows = withTreePauses(tree, (run) => run.parent?.runId);
  if (store instanceof JsonlEventStore) {
    const known = new Set(runs.map((run) => run.runId));
    for (const runId of unlisted(store, known, skipped)) {
      const { refused = "it holds no run.started" } = await statusOf(store, { runId, outcome: null });
      rows.push({ runId, task: "", startedAt: "", events: 0, outcome: null, depth: 0, status: "refused", refused });
    }
  }
  return rows;
}

/** The run's status, from the whole log: its logged end, or where the fold of its log stands. */
async function statusOf(
  store: EventStore,
  run: Pick<RunSummary, "runId" | "outcome">,
): Promise<{ status: ViewStatus; refused?: string }> {
  try {
    const events = await store.read(run.runId);
    const last = events.at(-1);
    if (last === undefined) return refusedFor("it holds no event");
    if (last.type === "run.finished") return { status: viewStatus({ ended: last.outcome.status }) };
    return { status: traceStatus(traceRun(events, run.runId, { keep: false })) };
  } catch (error) {
    return refusedFor(messageOf(error));
  }
}

function refusedFor(reason: string): { status: ViewStatus; refused: string } {
  return { status: viewStatus({ refused: reason }), refused: reason };
}

/** The run ids of the directory's `<runId>.jsonl` files that the store's list neither gave nor left out. */
function unlisted(store: JsonlEventStore, known: ReadonlySet<string>, skipped: ReadonlySet<string>): string[] {
  return readdirSync(store.directory, { withFileTypes: true })
    .filter((entry) => entry.name.endsWith(".jsonl") && !skipped.has(join(store.directory, entry.name)))
    .map((entry) => entry.name.slice(0, -".jsonl".length))
    .filter((runId) => isRunId(runId) && !known.has(runId))
    .sort();
}
