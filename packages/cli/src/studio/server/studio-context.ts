import type { ServerResponse } from "node:http";
import { isRunId, mayUse, type Principal } from "../../core-api.js";
import type { Authorize } from "../../setup/authorize-module.js";
import { type ChildRuns, childRunsOf } from "../../trace/child-runs.js";
import type { RunTrace } from "../../trace/run-trace.js";
import type { StoreWatcher } from "../watch/run-set.js";
import type { WatchedRun } from "../watch/watched-run.js";
import type { EvalReports } from "./eval-reports.js";
import { ActionError, type StudioActions } from "./studio-actions.js";

/** What the server serves: the watched store, what it can do, and the start's token. */
export interface StudioContext {
  readonly watcher: StoreWatcher;
  readonly actions: StudioActions;
  readonly token: string;
  readonly storeLabel: string;
  /** `Host` headers the studio answers (its address and port, and `localhost` for 127.0.0.1). */
  readonly hosts: Set<string>;
  /** The eval reports the studio shows (`--evals`), or `null`. */
  readonly evals?: EvalReports | null;
  /**
   * Who is asking (`--authorize`): with it, a request sees and acts on its tenant's runs only, and
   * another's is answered as a run the store does not hold. Without it, every request sees every
   * run (a local, single-user studio).
   */
  readonly authorize?: Authorize;
}

/** Whether a request from `principal` may see `run`: any run without `authorize`; with it, its tenant's only (core's `mayUse`). */
export function mayView(context: StudioContext, principal: Principal | undefined, run: WatchedRun): boolean {
  return context.authorize === undefined || mayUse(principal, run.owner);
}

/** A run id from the request, checked: never a path, so nothing outside the store can be named. */
export function runIdOf(text: string): string {
  if (!isRunId(text)) throw new ActionError(400, `'${text.slice(0, 200)}' is not a run id`);
  return text;
}

/**
 * A run of the store as the watcher has it, when `principal` may see it (`mayView`): another
 * tenant's run is `undefined`, as one the store does not hold. One the watcher does not know yet is
 * looked for in the store at once: a log written a moment ago may be asked for before the watcher's
 * own look at it.
 */
export async function watchedRun(
  context: StudioContext,
  runId: string,
  principal: Principal | undefined,
): Promise<WatchedRun | undefined> {
  if (context.watcher.runs.get(runId) === undefined) {
    const { watcher } = context;
    await (watcher.load === undefined ? watcher.poke() : watcher.load(runId));
  }
  const run = context.watcher.runs.get(runId);
  return run !== undefined && mayView(context, principal, run) ? run : undefined;
}

/** The trace of a run the store holds that `principal` may see; 404 for an unknown run (or another tenant's), 409 for a log the reader refused. */
export async function traceOf(
  context: StudioContext,
  runId: string,
  principal: Principal | undefined,
): Promise<RunTrace> {
  const run = await watchedRun(context, runId, principal);
  const trace = run?.trace() ?? null;
  if (run?.refused) throw new ActionError(409, `run '${runId}' is refused: ${run.refused}`);
  if (trace === null) throw new ActionError(404, `no run '${runId}' in this store`);
  return trace;
}

/** Sends a JSON answer. */
export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  response.end(JSON.stringify(value));
}

/** A run's child runs (its agent tool calls') read from the store, and the calls and questions its tree waits on, with chained ids. */
export async function treeOf(context: StudioContext, runId: string, trace: RunTrace): Promise<ChildRuns> {
  const log = { store: context.actions.store, runId, label: runId, storePath: context.storeLabel };
  return childRunsOf(log, trace);
}
