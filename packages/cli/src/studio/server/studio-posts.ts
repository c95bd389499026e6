import type { IncomingMessage, ServerResponse } from "node:http";
import { chainCallId, type Principal } from "../../core-api.js";
import { ActionError } from "./studio-actions.js";
import { runIdOf, type StudioContext, sendJson, traceOf, treeOf, watchedRun } from "./studio-context.js";

/** Bytes a request body may hold. */
const MAX_BODY = 64 * 1024;

/**
 * Answers a POST: a decision on a waiting call, an answer to a waiting question, a fork, a new run,
 * a next message. With a `principal`, a new run is the principal's, and a run it may not see is
 * answered as one the store does not hold.
 */
export async function postAction(
  context: StudioContext,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  principal: Principal | undefined,
): Promise<void> {
  const body = await readBody(request);
  const { actions } = context;
  if (path === "/api/runs") {
    const runId = await actions.start(text(body, "task"), principal);
    await untilWatched(context, runId);
    return sendJson(response, 202, { runId });
  }
  const [, api, runs, id, action, ...rest] = path.split("/");
  if (api !== "api" || runs !== "runs" || id === undefined || rest.length > 0) {
    throw new ActionError(404, `nothing to post to at ${path}`);
  }
  const runId = runIdOf(decodeURIComponent(id));
  const trace = await traceOf(context, runId, principal);
  const events = trace.entries.map((entry) => entry.event);
  if (action === "decisions") {
    const callId = text(body, "callId");
    await refuseChild(context, runId, principal, (chained) => `decide on '${chained(callId)}'`);
    const { waiting } = await treeOf(context, runId, trace);
    if (!waiting.some((call) => call.id === callId)) {
      throw new ActionError(409, `run '${runId}' does not wait for a decision on '${callId}'`);
    }
    const reason = typeof body.reason === "string" ? { reason: body.reason } : {};
    await actions.decide(runId, { [callId]: { approved: body.approved === true, ...reason } }, events);
    return sendJson(response, 202, { runId });
  }
  if (action === "answers") {
    const callId = text(body, "callId");
    await refuseChild(context, runId, principal, (chained) => `answer '${chained(callId)}'`);
    const { questions } = await treeOf(context, runId, trace);
    if (!questions.some((question) => question.id === callId)) {
      const which =
        questions.length === 0
          ? "no question waits"
          : `the questions that wait: ${questions.map((q) => q.id).join(", ")}`;
      throw new ActionError(409, `run '${runId}' does not wait for an answer to '${callId}'; ${which}`);
    }
    await actions.answer(runId, { [callId]: answerOf(text(body, "answer")) }, events);
    return sendJson(response, 202, { runId });
  }
  if (action === "fork") {
    const keep = body.keep;
    if (typeof keep !== "number" || !Number.isSafeInteger(keep) || keep < 1 || keep > events.length) {
      throw new ActionError(400, `keep must be a whole number from 1 to ${events.length}`);
    }
    const forkId = await actions.fork(runId, keep);
    // The fork is whole in the store: the studio reads it now, so that the pages opened next show all of it.
    await context.watcher.load?.(forkId);
    await context.watcher.poke();
    return sendJson(response, 201, { runId: forkId });
  }
  if (action === "messages") {
    if (trace.result === null) throw new ActionError(409, `run '${runId}' has not finished: resume it first`);
    await actions.chat(runId, text(body, "message"), events);
    return sendJson(response, 202, { runId });
  }
  throw new ActionError(404, `nothing to post to at ${path}`);
}

/** Waits (a few seconds at most) until the watcher folded a new run's start, so that its page can open. */
/**
 * Refuses to act on an agent tool's child run, whose calls are decided and answered from the run
 * that called it: `what` says what to do there, given the way to chain a call id under that call.
 */
async function refuseChild(
  context: StudioContext,
  runId: string,
  principal: Principal | undefined,
  what: (chained: (callId: string) => string) => string,
): Promise<void> {
  const calledBy = (await watchedRun(context, runId, principal))?.calledBy ?? null;
  if (calledBy === null) return;
  const chained = (callId: string) => chainCallId(calledBy.callId, callId);
  throw new ActionError(
    409,
    `run '${runId}' is run by call '${calledBy.callId}' of run '${calledBy.runId}': ${what(chained)} from there, which resumes the whole tree`,
  );
}

async function untilWatched(context: StudioContext, runId: string): Promise<void> {
  const failed = () => context.actions.failures.get(runId);
  for (let waited = 0; waited < 5000; waited += 20) {
    if ((context.watcher.runs.get(runId)?.length ?? 0) > 0) return;
    const failure = failed();
    if (failure !== undefined) throw new ActionError(409, failure);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { watcher } = context;
    await (watcher.load === undefined ? watcher.poke() : watcher.load(runId));
  }
}

/** An answer as the page's box gives it: JSON when it parses as JSON, else the text as it is (as `resume --answer` takes it). */
function answerOf(typed: string): unknown {
  try {
    return JSON.parse(typed);
  } catch {
    return typed;
  }
}

function text(body: Record<string, unknown>, key: string): string {
  const value = body[key];
  if (typeof value !== "string" || value.trim() === "")
    throw new ActionError(400, `'${key}' must be a non-empty string`);
  return value;
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new ActionError(413, `a request body may hold at most ${MAX_BODY} bytes`);
    chunks.push(chunk);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  } catch {
    throw new ActionError(400, "the request body is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ActionError(400, "the request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}
