import { type EventStore, type RunSummary, startedOf } from "../core-api.js";

/** A run of a store placed in its tree: how deep it sits, and the parent run and call that started it. */
export type TreeRun = RunSummary & {
  readonly depth: number;
  readonly parent?: { readonly runId: string; readonly callId: string };
};

/**
 * The runs oldest first, each child run right after its parent (its siblings oldest first). A run
 * is a child when its id is `<parent id>.<call id>` of a listed run and its `run.started` names
 * that parent; only those candidates' logs are read.
 */
export async function treeOrder(store: EventStore, runs: readonly RunSummary[]): Promise<TreeRun[]> {
  const sorted = [...runs].sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.runId.localeCompare(b.runId));
  const ids = new Set(sorted.map((run) => run.runId));
  const parents = new Map<string, { runId: string; callId: string }>();
  for (const run of sorted) {
    const dot = run.runId.lastIndexOf(".");
    if (dot <= 0 || !ids.has(run.runId.slice(0, dot))) continue;
    const parent = startedOf(await store.read(run.runId).catch(() => []))?.parent;
    if (parent !== undefined && parent.runId === run.runId.slice(0, dot)) parents.set(run.runId, parent);
  }
  const kids = new Map<string, RunSummary[]>();
  for (const run of sorted) {
    const parent = parents.get(run.runId)?.runId ?? "";
    kids.set(parent, [...(kids.get(parent) ?? []), run]);
  }
  const out: TreeRun[] = [];
  const visit = (parentId: string, depth: number) => {
    for (const run of kids.get(parentId) ?? []) {
      const parent = parents.get(run.runId);
      out.push(parent === undefined ? { ...run, depth } : { ...run, depth, parent });
      visit(run.runId, depth + 1);
    }
  };
  visit("", 0);
  return out;
}
