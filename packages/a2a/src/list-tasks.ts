import { type ListTasksRequest, type ListTasksResponse, type Task, TaskState } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { Principal } from "@agentloop/core";
import { runsFor, type ServeOptions } from "@agentloop/core/serve";
import { placeOf, withHistoryLength } from "./task-view.js";

/** Tasks a `ListTasks` page holds when the request names no page size, and at most. */
const PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

/**
 * `ListTasks`: the tasks of the runs `principal` may see (`runsFor`), the last started first, of
 * one context when the request names it, each read from its log (`snapshot`); a page token is the
 * offset of the page's first task. Without a filter on what only the log says (state, time), only
 * the page is read: ordering by each task's last update, as the spec asks, would read every log.
 */
export async function listTasks(
  serve: ServeOptions,
  principal: Principal | undefined,
  params: ListTasksRequest,
  snapshot: (runId: string) => Promise<Task>,
): Promise<ListTasksResponse> {
  const size = Math.min(params.pageSize ?? PAGE_SIZE, MAX_PAGE_SIZE);
  if (!(Number.isSafeInteger(size) && size >= 1)) throw new RequestMalformedError("pageSize must be 1 to 100");
  const offset = params.pageToken === "" ? 0 : Number(params.pageToken);
  if (!(Number.isSafeInteger(offset) && offset >= 0))
    throw new RequestMalformedError("the pageToken is not one this server gave");
  const ids = (await runsFor(serve.store, principal))
    .filter((summary) => {
      const place = placeOf(summary.runId);
      return place !== undefined && (params.contextId === "" || place.contextId === params.contextId);
    })
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.runId.localeCompare(a.runId))
    .map((summary) => summary.runId);
  const after = params.statusTimestampAfter === undefined ? undefined : Date.parse(params.statusTimestampAfter);
  if (Number.isNaN(after)) throw new RequestMalformedError("statusTimestampAfter must be an ISO 8601 timestamp");
  const filtered = params.status !== TaskState.TASK_STATE_UNSPECIFIED || after !== undefined;
  // Without a filter on what only the log says, only the page's tasks are read.
  const candidates = filtered ? ids : ids.slice(offset, offset + size);
  const tasks: Task[] = [];
  for (const id of candidates) {
    const task = await snapshot(id).catch(() => undefined);
    if (task === undefined) continue;
    if (params.status !== TaskState.TASK_STATE_UNSPECIFIED && task.status?.state !== params.status) continue;
    // At or after the given time, compared as instants: "...:15Z" is before "...:15.411Z".
    if (after !== undefined && !(Date.parse(task.status?.timestamp ?? "") >= after)) continue;
    const shown = withHistoryLength(task, params.historyLength ?? 0);
    // Artifacts only when asked for: the spec leaves them out of a list by default.
    tasks.push(params.includeArtifacts === true ? shown : { ...shown, artifacts: [] });
  }
  const page = filtered ? tasks.slice(offset, offset + size) : tasks;
  const total = filtered ? tasks.length : ids.length;
  const next = offset + size < total ? String(offset + size) : "";
  return { tasks: page, nextPageToken: next, pageSize: size, totalSize: total };
}
