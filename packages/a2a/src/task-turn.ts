import type { Message, SendMessageRequest } from "@a2a-js/sdk";
import { ContentTypeNotSupportedError, RequestMalformedError } from "@a2a-js/sdk/errors";
import type { MessageContent, Principal } from "@agentloop/core";
import {
  type ConversationAsk,
  conversationIdProblem,
  conversationState,
  decideFollowOn,
  decideTurn,
  isRefusal,
  type ServeOptions,
  ServeRefusal,
  type Turn,
  takeTurn,
} from "@agentloop/core/serve";
import { errorOf, refusalAsError } from "./a2a-errors.js";
import { askOf, contentOf } from "./task-ask.js";
import { placeOf, taskIdOf } from "./task-view.js";

/** What the serving core calls a run in what it tells the client. */
export const NOUN = "task";

/**
 * Decides and drives what a message asks: on a task (`taskId`), the decisions and answers it
 * waits for (a cut-off task is finished, then goes on with the message); without one, a new
 * task of its context (a new one when it names none), going on from the context's last task.
 */
export async function startTurn(
  serve: ServeOptions,
  principal: Principal | undefined,
  params: SendMessageRequest,
): Promise<Turn> {
  const { message } = params;
  if (message === undefined) throw new RequestMalformedError("the request has no message");
  // A file part is of a media type this agent does not take (its card names text and JSON).
  if (message.parts.some((part) => part.content?.$case !== "text" && part.content?.$case !== "data")) {
    throw new ContentTypeNotSupportedError("the message has a file part: this agent takes text and data parts");
  }
  const content = contentOf(message);
  if (content instanceof ServeRefusal) throw errorOf(content);
  const step =
    message.taskId === ""
      ? await nextTask(serve, principal, message, content)
      : await onTask(serve, principal, message, content);
  if (step instanceof ServeRefusal) throw errorOf(step);
  const turn = takeTurn(serve, principal, step.runId, step.step, { noun: NOUN });
  if (turn instanceof ServeRefusal) throw errorOf(turn);
  try {
    await turn.feed.started;
  } catch (error) {
    // Refused by the run itself (an answer off its question's shape, a log another writer holds): nothing ran.
    if (isRefusal(error)) throw errorOf(refusalAsError(serve, step.runId, error));
  }
  return turn;
}

type Planned = { readonly runId: string; readonly step: Turn["step"] } | ServeRefusal;

async function onTask(
  serve: ServeOptions,
  principal: Principal | undefined,
  message: Message,
  content: MessageContent,
): Promise<Planned> {
  const runId = message.taskId;
  const place = placeOf(runId);
  if (message.contextId !== "" && place !== undefined && place.contextId !== message.contextId) {
    return new ServeRefusal(400, `the message's contextId '${message.contextId}' is not task '${runId}''s`);
  }
  const state = await conversationState(serve, principal, runId);
  let ask: ConversationAsk;
  if (state.kind === "waiting") {
    const answered = askOf(message, state.calls, state.questions);
    if (answered instanceof ServeRefusal) return answered;
    ask = answered;
  } else if (state.kind === "cut-off") {
    ask = { kind: "message", content };
  } else {
    // Nothing of it waits: the core answers an unknown task (404), a turn still going, or an ended task (409).
    ask = { kind: "resume", decisions: {}, answers: {} };
  }
  const step = decideTurn(NOUN, runId, state, ask);
  if (step instanceof ServeRefusal) return step;
  if (step.kind === "follow" || step.kind === "follow-log") {
    return new ServeRefusal(409, `task '${runId}' is still working`);
  }
  return { runId, step };
}

async function nextTask(
  serve: ServeOptions,
  principal: Principal | undefined,
  message: Message,
  content: MessageContent,
): Promise<Planned> {
  const contextId = message.contextId === "" ? globalThis.crypto.randomUUID() : message.contextId;
  // Checked before the store is read for its tasks, and again for the number the next task takes.
  const badId = (taskId: string) => {
    const problem = conversationIdProblem(taskId, "task id");
    return problem === null
      ? null
      : new ServeRefusal(400, `the contextId '${contextId.slice(0, 100)}' cannot name tasks: ${problem}`);
  };
  const bad = badId(taskIdOf(contextId, 1));
  if (bad !== null) return bad;
  const taken = await lastTaskOf(serve.store, contextId);
  const runId = taskIdOf(contextId, taken + 1);
  const longer = badId(runId);
  if (longer !== null) return longer;
  const previous = taskIdOf(contextId, Math.max(taken, 1));
  const step = decideFollowOn(
    NOUN,
    runId,
    await conversationState(serve, principal, runId),
    { runId: previous, state: taken === 0 ? { kind: "none" } : await conversationState(serve, principal, previous) },
    content,
  );
  return step instanceof ServeRefusal ? step : { runId, step };
}

/**
 * How many tasks context `contextId` has: its tasks are numbered from 1 with no gap (a task is
 * numbered when its log is first written, and a store never deletes a run), so the last one is
 * found by doubling, then halving, in about twice the bits of the count in reads of its own task
 * ids — never a listing of every run in the store.
 */
async function lastTaskOf(store: ServeOptions["store"], contextId: string): Promise<number> {
  const exists = async (n: number) => (await store.read(taskIdOf(contextId, n))).length > 0;
  if (!(await exists(1))) return 0;
  let low = 1;
  let high = 2;
  while (await exists(high)) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await exists(middle)) low = middle;
    else high = middle;
  }
  return low;
}
