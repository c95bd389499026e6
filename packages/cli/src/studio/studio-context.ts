import type { ServerResponse } from "node:http";
import { isRunId } from "../core-api.js";
import type { RunTrace } from "../trace/run-trace.js";
import type { StoreWatcher } from "./run-set.js";
import { ActionError, type StudioActions } from "./studio-actions.js";

/** What the server serves: the watched store, what it can do, and the start's token. */
export interface StudioContext {
  readonly watcher: StoreWatcher;
  readonly actions: StudioActions;
  readonly token: string;
  readonly storeLabel: string;
  /** `Host` headers the studio answers (its address and port, and `localhost` for 127.0.0.1). */
  readonly hosts: Set<string>;
}

/** A run id from the request, checked: never a path, so nothing outside the store can be named. */
export function runIdOf(text: string): string {
  if (!isRunId(text)) throw new ActionError(400, `'${text.slice(0, 200)}' is not a run id`);
  return text;
}

/** The trace of a run the store holds; 404 for an unknown run, 409 for a log the reader refused. */
export function traceOf(context: StudioContext, runId: string): RunTrace {
  const run = context.watcher.runs.get(runId);
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
