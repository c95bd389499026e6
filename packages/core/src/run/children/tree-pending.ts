import type { AgentResult, PendingQuestion, RunEvent, StoredEvent, ToolCall } from "../../data/index.js";
import { chainCallId } from "../../data/index.js";
import { pendingApprovals, pendingQuestions } from "../../decide/index.js";
import { type EventStore, type Replay, replayRun } from "../../log/index.js";
import { treeListing } from "./child-calls.js";

/** How deep a tree of runs is read: logs written by hand could name each other in a loop. */
export const TREE_DEPTH_LIMIT = 32;

/** What the tree reader needs of a folded run: whether it ended, and what it waits on (its own calls). */
export interface TreeRun {
  readonly result: unknown;
  readonly waiting: readonly ToolCall[];
  readonly questions: readonly PendingQuestion[];
}

/** A child run an agent tool call started, read from its own log; its tree's waiting chained under the parent's call. */
export interface TreeChild<R extends TreeRun> {
  /** The parent's call that runs it, and the agent tool's name. */
  readonly callId: string;
  readonly name: string;
  readonly runId: string;
  /** Its log as read (empty when there is none). */
  readonly events: readonly StoredEvent[];
  /** The folded log; `missing` when no log of this run names the parent, `refused` when the log does not fold. */
  readonly run: R | "missing" | "refused";
  /** The calls its tree waits on, with ids chained under the parent's call (`<call id>/<child call id>`, see `chainCallId`). */
  readonly waiting: readonly ToolCall[];
  /** The questions its tree waits on, chained the same way. */
  readonly questions: readonly PendingQuestion[];
  readonly children: readonly TreeChild<R>[];
}

/** How the tree reader folds a child's log; throwing makes the child `refused`. */
export type TreeFold<R extends TreeRun> = (events: readonly StoredEvent[], runId: string) => R;

/** A call that runs a child: the parent's call id, the agent tool's name, the child's run id. */
export interface ChildCall {
  readonly callId: string;
  readonly name: string;
  readonly childRunId: string;
}

/** The calls a log shows starting a child run (`tool.started` naming one), in log order. */
export function childCallsOf(events: Iterable<RunEvent>): ChildCall[] {
  const calls: ChildCall[] = [];
  for (const event of events) {
    if (event.type !== "tool.started" || event.childRunId === undefined) continue;
    calls.push({ callId: event.callId, name: event.name, childRunId: event.childRunId });
  }
  return calls;
}

/**
 * The children of a run's `calls` (see `childCallsOf`), each read from the same store and folded
 * with `fold`, and theirs at any depth up to `TREE_DEPTH_LIMIT`. Reads logs only; runs nothing;
 * `readTree`'s walk, not a reader of its own.
 */
async function readChildren<R extends TreeRun>(
  store: EventStore,
  runId: string,
  calls: readonly ChildCall[],
  fold: TreeFold<R>,
  depth = 0,
): Promise<TreeChild<R>[]> {
  const children: TreeChild<R>[] = [];
  if (depth >= TREE_DEPTH_LIMIT) return children;
  for (const { callId, name, childRunId } of calls) {
    children.push(await readChild(store, runId, callId, name, childRunId, fold, depth + 1));
  }
  return children;
}

async function readChild<R extends TreeRun>(
  store: EventStore,
  parentRunId: string,
  callId: string,
  name: string,
  runId: string,
  fold: TreeFold<R>,
  depth: number,
): Promise<TreeChild<R>> {
  const none = { waiting: [], questions: [], children: [] };
  const events = await store.read(runId).catch(() => []);
  const [started] = events;
  if (started?.type !== "run.started" || started.parent?.runId !== parentRunId) {
    return { callId, name, runId, events, run: "missing", ...none };
  }
  let run: R;
  try {
    run = fold(events, runId);
  } catch {
    // A child's log that does not fit the machine is named, not a reason to refuse its parent.
    return { callId, name, runId, events, run: "refused", ...none };
  }
  const children = await readChildren(store, runId, childCallsOf(events), fold, depth);
  const open = run.result === null;
  const waiting = [
    ...(open ? run.waiting : []).map((call) => ({ ...call, id: chainCallId(callId, call.id) })),
    ...children.flatMap((child) => child.waiting).map((call) => ({ ...call, id: chainCallId(callId, call.id, true) })),
  ];
  const questions = [
    ...(open ? run.questions : []).map((question) => ({ ...question, id: chainCallId(callId, question.id) })),
    ...children
      .flatMap((child) => child.questions)
      .map((question) => ({ ...question, id: chainCallId(callId, question.id, true) })),
  ];
  return { callId, name, runId, events, run, waiting, questions, children };
}

/** The calls that start a child (see `childCallsOf`) that `events` leave open: started, and not finished since. */
function openChildCalls(events: readonly RunEvent[]): ChildCall[] {
  const open = new Map<string, ChildCall>();
  for (const event of events) {
    if (event.type === "tool.finished") open.delete(event.callId);
    if (event.type !== "tool.started" || event.childRunId === undefined) continue;
    open.set(event.callId, { callId: event.callId, name: event.name, childRunId: event.childRunId });
  }
  return [...open.values()];
}

/** The calls a run's tree waits on: its own, then each unfinished child's, with chained ids (as `resumeAgent` names them). */
function treeWaitingOf(run: TreeRun, children: readonly { readonly waiting: readonly ToolCall[] }[]): ToolCall[] {
  if (run.result !== null) return [];
  return treeListing(
    run.waiting,
    children.flatMap((child) => child.waiting),
  );
}

/** The questions a run's tree waits on: its own, then each unfinished child's, with chained ids (as `resumeAgent` takes answers). */
function treeQuestionsOf(
  run: TreeRun,
  children: readonly { readonly questions: readonly PendingQuestion[] }[],
): PendingQuestion[] {
  if (run.result !== null) return [];
  return [...run.questions, ...children.flatMap((child) => child.questions)];
}

/** A run folded by `replayRun`, as the tree reader sees it. */
export interface ReplayedRun extends TreeRun {
  readonly replay: Replay;
  readonly result: AgentResult | null;
}

/** Folds a log with `replayRun`, with what the run waits on. */
function replayedRun(events: readonly StoredEvent[], runId: string): ReplayedRun {
  return replayedOf(replayRun(events, { runId }));
}

/** A run as the tree reader sees it, from its `replayRun` made already (for `readTree`'s `root`). */
export function replayedOf(replay: Replay): ReplayedRun {
  return {
    replay,
    result: replay.result,
    waiting: pendingApprovals(replay.context),
    questions: pendingQuestions(replay.context),
  };
}

/** A run and its tree, read from a store: the run folded (`R`, `ReplayedRun` by default), its children, and what the tree waits on. */
export type RunTree<R extends TreeRun = ReplayedRun> = R & {
  readonly runId: string;
  readonly children: readonly TreeChild<R>[];
  /** The calls and questions its tree waits on, with chained ids (empty once it ended). */
  readonly treeWaiting: readonly ToolCall[];
  readonly treeQuestions: readonly PendingQuestion[];
};

/** How `readTree` reads: how each run's log is folded, and the root's log and fold when they are at hand already. */
export interface ReadTreeOptions<R extends TreeRun> {
  /** How each run's log is folded (throwing on a child's log makes that child `refused`); `replayRun` by default. */
  readonly fold: TreeFold<R>;
  /** The root's log, read already: it is not read again. */
  readonly events?: readonly StoredEvent[] | undefined;
  /** The root folded already from `events` (with `fold`): it is not folded again. */
  readonly root?: R | undefined;
  /**
   * Reads only the children that can still wait: those of calls the root's log leaves open (a
   * finished call's child has ended). What waits is the same; the tree's `children` lists fewer.
   */
  readonly waitingOnly?: boolean | undefined;
}

/**
 * A run and every child run under it, read from `store`: each run folded (by `replayRun`, or by
 * `options.fold`), and the calls and questions the tree waits on by chained id, as `resumeAgent`
 * takes decisions and answers. Children are followed to a depth of `TREE_DEPTH_LIMIT`. Reads logs
 * only; runs nothing. Rejects as the fold does for the root's log; a child's log that is missing
 * or does not fold is named (`missing`, `refused`), not a reason to refuse the tree. The one reader
 * of what waits in a tree: `resumeAgent`, the front doors, `show`, the report and the studio use it.
 */
export async function readTree(
  store: EventStore,
  runId: string,
  options?: Partial<ReadTreeOptions<ReplayedRun>>,
): Promise<RunTree>;
export async function readTree<R extends TreeRun>(
  store: EventStore,
  runId: string,
  options: ReadTreeOptions<R>,
): Promise<RunTree<R>>;
export async function readTree(
  store: EventStore,
  runId: string,
  options: Partial<ReadTreeOptions<TreeRun>> = {},
): Promise<RunTree<TreeRun>> {
  const fold = options.fold ?? replayedRun;
  const events = options.events ?? (await store.read(runId));
  const root = options.root ?? fold(events, runId);
  const calls = options.waitingOnly === true ? openChildCalls(events) : childCallsOf(events);
  const children = await readChildren(store, runId, calls, fold);
  return {
    ...root,
    runId,
    children,
    treeWaiting: treeWaitingOf(root, children),
    treeQuestions: treeQuestionsOf(root, children),
  };
}
