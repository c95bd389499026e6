import { type ListTasksRequest, type ListTasksResponse, type Task, TaskState } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { Principal } from "@agentloop/core";
import { runsFor, type ServeOptions } from "@agentloop/core/serve";
import { placeOf, withHistoryLength } from "./task-view.js";

/** Tasks a `ListTasks` page holds when the request names no page size, and at most. */
const PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

/**
 * `ListTasks`: the tasks of the runs `principal` may see (`runsFor`), newest first, of one context
 * when the request names it, each read from its log (`snapshot`); a page token is the offset of the
 * page's first task. Without a filter on what only the log says (state, time), only the page is read.
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
  const filtered = params.status !== TaskState.TASK_STATE_UNSPECIFIED || params.statusTimestampAfter !== undefined;
  // Without a filter on what only the log says, only the page's tasks are read.
  const candidates = filtered ? ids : ids.slice(offset, offset + size);
  const tasks: Task[] = [];
  for (const id of candidates) {
    const task = await snapshot(id).catch(() => undefined);
    if (task === undefined) continue;
    if (params.status !== TaskState.TASK_STATE_UNSPECIFIED && task.status?.state !== params.status) continue;
    const after = params.statusTimestampAfter;
    if (after !== undefined && (task.status?.timestamp ?? "") <= after) continue;
    tasks.push(withHistoryLength(task, params.historyLength ?? 0));
  }
  const page = filtered ? tasks.slice(offset, offset + size) : tasks;
  const total = filtered ? tasks.length : ids.length;
  const next = offset + size < total ? String(offset + size) : "";
  return { tasks: page, nextPageToken: next, pageSize: size, totalSize: total };
}
