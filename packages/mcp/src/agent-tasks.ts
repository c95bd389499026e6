import {
  type AgentResult,
  type AgentStreamEvent,
  type Decision,
  EventLogError,
  type PendingQuestion,
  type Principal,
  type ToolCall,
} from "@agentloop/core";
import { liveRun, mayUse, performStep, readOwned, refusalOf, type ServeOptions } from "@agentloop/core/serve";
import type { StoredEvent } from "@agentloop/core/store";
import {
  type CallToolResult,
  fromJsonSchema,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { type QuestionForm, questionForm } from "./question-form.js";
import { type AgentTask, endedTask, runStateOf, taskOf } from "./run-task.js";
import { drive, failureOf } from "./task-runs.js";

/** Milliseconds a client is asked to wait between two `tasks/get`. */
export const TASK_POLL_INTERVAL_MS = 200;
/** The form a waiting call is asked with: `{ approved, reason? }`. */
export const DECISION_SCHEMA = {
  type: "object" as const,
  properties: { approved: { type: "boolean" as const }, reason: { type: "string" as const } },
  required: ["approved"],
};
const TASK_ID = fromJsonSchema<{ taskId: string }>({
  type: "object",
  properties: { taskId: { type: "string" } },
  required: ["taskId"],
});

/** A question to the client that it did not answer (no form support, gone, refused): no failure of the run. */
class UnansweredError extends Error {}

/** What the server's capabilities say of tasks: task-augmented `tools/call` and `tasks/cancel`. */
export const TASK_CAPABILITIES = { tasks: { cancel: {}, requests: { tools: { call: {} } } } };

/**
 * Starts run `runId` on `task` for a task-augmented `tools/call`; answers with the task once the run
 * logged its start, so that the task's `createdAt` is the log's from its first message on. Refused
 * (`RangeError`) when the run is already driven here or its log is written elsewhere: a task id
 * names one run.
 */
export async function createTask(
  serve: ServeOptions,
  principal: Principal | undefined,
  runId: string,
  task: string,
): Promise<AgentTask> {
  let startLogged: () => void = () => {};
  let started = false;
  const logged = new Promise<void>((resolve) => {
    startLogged = resolve;
  });
  const onEvent = (event: AgentStreamEvent) => {
    if (event.type !== "logged") return;
    started = true;
    startLogged();
  };
  // A log another writer holds before this run logged anything is that writer's run, not a failure of this one.
  const theirs = (error: unknown) => error instanceof EventLogError && !started;
  const run = drive(
    serve,
    runId,
    principal,
    (signal) => performStep(serve, principal, runId, { kind: "start", content: task }, { signal, onEvent }),
    (error) => !theirs(error),
  );
  let refused: EventLogError | undefined;
  run.done.catch((error: unknown) => {
    if (error instanceof EventLogError && theirs(error)) refused = error;
  });
  // `ended` settles after the run's error is seen above.
  await Promise.race([logged, run.ended]);
  if (refused !== undefined) throw new RangeError(`run '${runId}' is already known: ${refused.message}`);
  return current(serve, principal, runId, run.startedAt);
}

/**
 * Serves `tasks/get`, `tasks/result` and `tasks/cancel` for the runs of `serve.store` that
 * `principal` may use (`mayUse`), by run id: another tenant's task is "not found", as an unknown one is.
 */
export function serveTasks(server: Server, serve: ServeOptions, principal: Principal | undefined): void {
  server.setRequestHandler("tasks/get", { params: TASK_ID }, async ({ taskId }) => ({
    ...(await current(serve, principal, taskId)),
  }));
  server.setRequestHandler("tasks/result", { params: TASK_ID }, async ({ taskId }, ctx) => {
    const result = await resultOf(serve, principal, taskId, ctx as ServerContext);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  });
  server.setRequestHandler("tasks/cancel", { params: TASK_ID }, async ({ taskId }) => ({
    ...(await cancel(serve, principal, taskId)),
  }));
}

/** The run's events if `principal` may use run `runId` (a run this process drives is checked before its log is read); else "not found". */
async function ownEvents(
  serve: ServeOptions,
  principal: Principal | undefined,
  runId: string,
): Promise<readonly StoredEvent[]> {
  const run = liveRun(serve.store, runId);
  if (run !== undefined && !mayUse(principal, run.owner)) throw notFound(runId);
  const events = await readOwned(serve.store, principal, runId).catch((error: unknown) => {
    // The principal's own log that cannot be used now is refused in words that name no file.
    throw error instanceof EventLogError ? new RangeError(refusalOf(serve, runId, error).message) : error;
  });
  if (events === null) throw notFound(runId);
  return events;
}

async function current(
  serve: ServeOptions,
  principal: Principal | undefined,
  runId: string,
  askedAt?: string,
): Promise<AgentTask> {
  const events = await ownEvents(serve, principal, runId);
  const run = liveRun(serve.store, runId);
  if (events.length === 0 && run === undefined && askedAt === undefined) throw notFound(runId);
  const failure = run === undefined ? failureOf(serve.store, runId, events) : undefined;
  const startedAt = run?.startedAt ?? askedAt ?? new Date().toISOString();
  return taskOf(runId, events, {
    pollInterval: TASK_POLL_INTERVAL_MS,
    startedAt,
    ...(failure === undefined ? {} : { failure }),
  });
}

/**
 * What `tasks/result` answers: waits for the run's end, and while the run waits for approval or for
 * answers asks this client (one form per waiting call and per question, on this request's stream,
 * related to the task) and goes on with its answers. A question left unanswered, or answered off
 * its shape, is told to the client as an error and keeps waiting. A run no process drives is taken
 * up from its log.
 */
async function resultOf(
  serve: ServeOptions,
  principal: Principal | undefined,
  runId: string,
  ctx: ServerContext,
): Promise<CallToolResult> {
  const { store } = serve;
  for (;;) {
    const run = liveRun(store, runId);
    if (run !== undefined) {
      if (!mayUse(principal, run.owner)) throw notFound(runId);
      // A later turn of the task's conversation runs: the task itself ended as its log says.
      const ended = endedTask(runId, await ownEvents(serve, principal, runId));
      if (ended !== undefined) return toolResultOf(ended);
      await run.ended;
      continue;
    }
    const all = await ownEvents(serve, principal, runId);
    if (all.length === 0) throw notFound(runId);
    const ended = endedTask(runId, all);
    if (ended !== undefined) return toolResultOf(ended);
    const failure = failureOf(store, runId, all);
    if (failure !== undefined) return { content: [{ type: "text", text: failure }], isError: true };
    // Another request of this process took the run up while the log was read: follow that one.
    if (liveRun(store, runId) !== undefined) continue;
    const state = runStateOf(runId, all);
    if (state.kind === "ended") return toolResultOf(state.result);
    const asked =
      state.kind === "waiting"
        ? drive(
            serve,
            runId,
            principal,
            async (signal) => {
              const elicit = taskElicitation(ctx, runId, signal);
              const decisions = await ask(elicit, state.calls);
              const answers = await askQuestions(elicit, state.questions);
              return performStep(serve, principal, runId, { kind: "resume", decisions, answers }, { signal });
            },
            // Unanswered, or answered off its question's shape: the run still waits, and the client is told.
            (error) =>
              !(error instanceof UnansweredError || error instanceof RangeError || error instanceof EventLogError),
          )
        : drive(
            serve,
            runId,
            principal,
            (signal) => performStep(serve, principal, runId, { kind: "finish" }, { signal }),
            (error) => !(error instanceof EventLogError),
          );
    const outcome = await asked.done.then(
      () => undefined,
      (error: unknown) => error,
    );
    await asked.ended;
    // Another process holds the run: wait for its writes instead of taking it up.
    if (outcome instanceof EventLogError) await new Promise((resolve) => setTimeout(resolve, TASK_POLL_INTERVAL_MS));
    if ((outcome instanceof UnansweredError || outcome instanceof RangeError) && !asked.controller.signal.aborted) {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, outcome.message);
    }
  }
}

/** Asks this client one form; a form that could not be asked is an `UnansweredError`, `cannot` followed by why. */
type Elicit = (
  form: Pick<QuestionForm, "message" | "requestedSchema">,
  cannot: string,
) => Promise<Awaited<ReturnType<ServerContext["mcpReq"]["elicitInput"]>>>;

/** How forms related to task `runId` are asked of this client, until it goes or `signal` aborts. */
function taskElicitation(ctx: ServerContext, runId: string, signal: AbortSignal): Elicit {
  const both = AbortSignal.any([signal, ctx.mcpReq.signal]);
  return async (form, cannot) => {
    try {
      return await ctx.mcpReq.elicitInput(
        {
          mode: "form",
          message: form.message,
          requestedSchema: form.requestedSchema,
          _meta: { [RELATED_TASK_META_KEY]: { taskId: runId } },
        },
        { signal: both },
      );
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new UnansweredError(`${cannot}: ${why}`);
    }
  };
}

/** Asks this client to approve each call the run waits on, one form each: a declined form denies the call. */
async function ask(elicit: Elicit, calls: readonly ToolCall[]): Promise<Record<string, Decision>> {
  const decisions: Record<string, Decision> = {};
  for (const call of calls) {
    const answer = await elicit(
      { message: approvalPrompt(call), requestedSchema: DECISION_SCHEMA },
      `Cannot ask for the approval of '${call.id}' (${call.name})`,
    );
    const content = answer.action === "accept" ? answer.content : undefined;
    decisions[call.id] =
      content === undefined
        ? { approved: false, reason: "the client declined the call" }
        : {
            approved: content.approved === true,
            ...(typeof content.reason === "string" ? { reason: content.reason } : {}),
          };
  }
  return decisions;
}

/**
 * Asks this client each question the run waits on, one form each (related to the task): an accepted
 * form is the answer; a declined or cancelled one leaves the question waiting (`UnansweredError`).
 */
async function askQuestions(elicit: Elicit, questions: readonly PendingQuestion[]): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const question of questions) {
    const form = questionForm(question);
    const answer = await elicit(form, `Cannot ask question '${question.id}'`);
    if (answer.action !== "accept" || answer.content === undefined) {
      throw new UnansweredError(
        `Question '${question.id}' was not answered (the client's form was ${answer.action}ed); it still waits`,
      );
    }
    answers[question.id] = form.answerOf(answer.content);
  }
  return answers;
}

/** Cancels the run: one this process drives is stopped; a paused one is ended `cancelled` in its log. */
async function cancel(serve: ServeOptions, principal: Principal | undefined, runId: string): Promise<AgentTask> {
  const { store } = serve;
  const task = await current(serve, principal, runId);
  if (task.status === "completed" || task.status === "failed" || task.status === "cancelled") {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task '${runId}': it is ${task.status}`);
  }
  const run = liveRun(store, runId);
  if (run !== undefined) {
    run.controller.abort(new Error("the client cancelled the task"));
    await run.ended;
  }
  const events = await store.read(runId);
  if (events.length > 0 && runStateOf(runId, events).kind !== "ended") {
    const stopped = AbortSignal.abort(new Error("the client cancelled the task"));
    await drive(serve, runId, principal, (signal) =>
      performStep(serve, principal, runId, { kind: "finish" }, { signal: AbortSignal.any([signal, stopped]) }),
    ).ended;
  }
  return current(serve, principal, runId);
}

/** A run's result as a tool result: the answer (a typed output as `structuredContent`), or an error naming how it ended. */
export function toolResultOf(result: AgentResult, meta: Record<string, unknown> = {}): CallToolResult {
  if (result.status !== "done") {
    const why = result.guardrail === undefined ? "" : ` (${result.guardrail.name}: ${result.guardrail.reason})`;
    return { content: [{ type: "text", text: `The run ended ${result.status}${why}.` }], isError: true, _meta: meta };
  }
  const output = result.output;
  const structured =
    typeof output === "object" && output !== null && !Array.isArray(output)
      ? { structuredContent: output as Record<string, unknown> }
      : {};
  return { content: [{ type: "text", text: result.answer ?? "" }], ...structured, _meta: meta };
}

/** The question a waiting call is asked with. */
export function approvalPrompt(call: ToolCall): string {
  return `Approve ${call.name} with ${JSON.stringify(call.args)}?`;
}

function notFound(runId: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: '${runId}' names no run`);
}
