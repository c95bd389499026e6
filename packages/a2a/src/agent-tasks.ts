import {
  type AgentCard,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTasksRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  TaskState,
} from "@a2a-js/sdk";
import {
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import type { AgentStreamEvent, Principal } from "@agentloop/core";
import {
  clientError,
  conversationState,
  decideTurn,
  drive,
  followLog,
  liveRun,
  performStep,
  type ServeOptions,
  type ServeRefusal,
  type Turn,
  turnStartOf,
} from "@agentloop/core/serve";
import { masked } from "./a2a-errors.js";
import { listTasks } from "./list-tasks.js";
import { failureOf } from "./task-failures.js";
import { NOUN, startTurn } from "./task-turn.js";
import { agentMessage, type TaskRead, taskOf, withHistoryLength } from "./task-view.js";

/**
 * The A2A request handler of one request from `principal`: every verb mapped onto the serving
 * core, so that a task is a run of `serve.store` (task id = run id) and every answer is read from
 * its log. A context is a conversation: its tasks are `<contextId>.1`, `<contextId>.2`, … and each
 * new task goes on from the transcript of the one before. Another tenant's task is answered, on
 * every verb, exactly as a task that does not exist.
 */
export function agentTasks(serve: ServeOptions, principal: Principal | undefined, card: AgentCard): A2ARequestHandler {
  const snapshot = async (runId: string): Promise<Task> => {
    const read = await readTask(serve, principal, runId);
    return taskOf(runId, read, read.state.kind === "cut-off" ? failed(serve, runId, read.events) : undefined);
  };
  // The task as a stream tells it: an error reading it masked, as every verb masks it.
  const told = (runId: string) => masked(serve, runId, () => snapshot(runId));
  const unsupported = () => Promise.reject(new PushNotificationNotSupportedError());
  return {
    getAgentCard: async () => card,
    // The card declares no extended card (`capabilities.extendedAgentCard`): asking for one is unsupported.
    getAuthenticatedExtendedAgentCard: () =>
      Promise.reject(new UnsupportedOperationError("this agent has no extended agent card")),
    sendMessage: (params) =>
      masked(serve, params.message?.taskId ?? "", async () => {
        const turn = await startTurn(serve, principal, params);
        const runId = turn.live.runId;
        if (params.configuration?.returnImmediately !== true) {
          await settled(turn);
        }
        return withHistoryLength(await snapshot(runId), params.configuration?.historyLength);
      }),
    sendMessageStream: (params) => streamed(serve, () => startTurn(serve, principal, params), told),
    getTask: (params: GetTaskRequest) =>
      masked(serve, params.id, async () => withHistoryLength(await snapshot(params.id), params.historyLength)),
    listTasks: (params: ListTasksRequest) => masked(serve, "", () => listTasks(serve, principal, params, snapshot)),
    cancelTask: (params: CancelTaskRequest) =>
      masked(serve, params.id, () => cancel(serve, principal, params.id, snapshot)),
    resubscribe: (params: SubscribeToTaskRequest) => resubscribe(serve, params.id, told),
    createTaskPushNotificationConfig: unsupported,
    getTaskPushNotificationConfig: unsupported,
    listTaskPushNotificationConfigs: unsupported,
    deleteTaskPushNotificationConfig: unsupported,
  };
}

/** Where task `runId` stands for `principal`, with its log; an unknown task, or another tenant's, is "not found" in one wording. */
async function readTask(serve: ServeOptions, principal: Principal | undefined, runId: string): Promise<TaskRead> {
  const state = await conversationState(serve, principal, runId);
  if (state.kind === "none" || state.kind === "foreign") throw notFound(runId);
  const events = state.kind === "going" ? await serve.store.read(runId) : state.events;
  return { state, events };
}

/** What the client is told of a cut-off turn that failed: as this process saw it fail, or as its log says a model call failed. */
function failed(serve: ServeOptions, runId: string, events: TaskRead["events"]): string | undefined {
  const kept = failureOf(serve.store, runId, events);
  if (kept !== undefined) return kept;
  const last = events.at(-1);
  if (last?.type !== "model.failed") return undefined;
  return clientError({ exposeErrors: serve.exposeErrors }, runId, new Error(last.error));
}

function notFound(runId: string): TaskNotFoundError {
  // The core's wording of a run it does not hold, for an unknown task and another tenant's alike.
  const refusal = decideTurn(NOUN, runId, { kind: "none" }, { kind: "read" }) as ServeRefusal;
  return new TaskNotFoundError(refusal.message);
}

/** Waits for the turn's end; a failure is the task's (failed), told as the client may see it. */
async function settled(turn: Turn): Promise<void> {
  await turn.feed.result.catch(() => undefined);
  await turn.live.ended;
}

/** A turn's stream: the task as it starts, then its end as a status update (the answer first, as an artifact). */
async function* streamed(
  serve: ServeOptions,
  start: () => Promise<Turn>,
  told: (runId: string) => Promise<Task>,
): AsyncGenerator<StreamResponse> {
  const turn = await masked(serve, "", start);
  const runId = turn.live.runId;
  const task = await told(runId);
  yield { payload: { $case: "task", value: task } };
  try {
    for await (const event of turn.feed) {
      const said = progressOf(event);
      if (said === undefined) continue;
      const message = agentMessage(globalThis.crypto.randomUUID(), runId, task.contextId, said);
      const status = { state: TaskState.TASK_STATE_WORKING, message, timestamp: new Date().toISOString() };
      yield {
        payload: {
          $case: "statusUpdate",
          value: { taskId: runId, contextId: task.contextId, status, metadata: undefined },
        },
      };
    }
  } catch {
    // The run failed: its end below says so, as the client may see it.
  }
  await settled(turn);
  yield* endOf(await told(runId));
}

/** What a working task tells of the run's progress: the text of a reply that calls tools, and each tool it starts (the run's own, not a child's). */
function progressOf(event: AgentStreamEvent): string | undefined {
  if (event.type !== "logged" || event.origin !== undefined) return undefined;
  const logged = event.event;
  if (logged.type === "model.replied" && logged.reply.toolCalls.length > 0 && logged.reply.content !== "") {
    return logged.reply.content;
  }
  if (logged.type === "tool.started") return `Running ${logged.name}.`;
  return undefined;
}

/** A task's end as a stream tells it: its artifacts, then its status. */
function* endOf(task: Task): Generator<StreamResponse> {
  const ids = { taskId: task.id, contextId: task.contextId, metadata: undefined };
  for (const artifact of task.artifacts) {
    yield { payload: { $case: "artifactUpdate", value: { ...ids, artifact, append: false, lastChunk: true } } };
  }
  yield { payload: { $case: "statusUpdate", value: { ...ids, status: task.status } } };
}

/**
 * Follows a task from now: a working one to its next pause or end, whichever process drives it
 * (this one's run, or another's from the log); one that waits is told as it stands. An ended task
 * is not followed.
 */
async function* resubscribe(
  serve: ServeOptions,
  runId: string,
  told: (runId: string) => Promise<Task>,
): AsyncGenerator<StreamResponse> {
  const task = await told(runId);
  const state = task.status?.state;
  if (isTerminal(state)) {
    throw new UnsupportedOperationError(`task '${runId}' has ended (${TaskState[state ?? 0]}): read it with GetTask`);
  }
  yield { payload: { $case: "task", value: task } };
  const live = liveRun(serve.store, runId);
  if (live !== undefined) await live.ended;
  else if (state === TaskState.TASK_STATE_WORKING) {
    // Driven elsewhere: its log says when the turn pauses or ends (or that its process is gone).
    const from = turnStartOf(await serve.store.read(runId));
    await followLog(serve.store, runId, { from }).result.catch(() => undefined);
  } else return;
  yield* endOf(await told(runId));
}

/** Cancels the task: a turn this process drives is stopped; one that waits or was cut off is ended `cancelled` in its log. */
async function cancel(
  serve: ServeOptions,
  principal: Principal | undefined,
  runId: string,
  snapshot: (runId: string) => Promise<Task>,
): Promise<Task> {
  const task = await snapshot(runId);
  if (isTerminal(task.status?.state)) {
    throw new TaskNotCancelableError(`task '${runId}' has ended (${TaskState[task.status?.state ?? 0]})`);
  }
  const live = liveRun(serve.store, runId);
  if (live !== undefined) {
    live.controller.abort(new Error("the client cancelled the task"));
    await live.ended;
  }
  const state = await conversationState(serve, principal, runId);
  if (state.kind === "waiting" || state.kind === "cut-off") {
    const stopped = AbortSignal.abort(new Error("the client cancelled the task"));
    await drive(serve.store, runId, principal, (signal) =>
      performStep(serve, principal, runId, { kind: "finish" }, { signal: AbortSignal.any([signal, stopped]) }),
    ).ended;
  }
  return snapshot(runId);
}

function isTerminal(state: TaskState | undefined): boolean {
  return (
    state === TaskState.TASK_STATE_COMPLETED ||
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_CANCELED ||
    state === TaskState.TASK_STATE_REJECTED
  );
}
