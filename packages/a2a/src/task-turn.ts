import type { Message, SendMessageRequest } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
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
  const taken = (await serve.store.list())
    .map((summary) => placeOf(summary.runId))
    .filter((place) => place?.contextId === contextId)
    .reduce((last, place) => Math.max(last, place?.n ?? 0), 0);
  const runId = taskIdOf(contextId, taken + 1);
  const problem = conversationIdProblem(runId, "task id");
  if (problem !== null)
    return new ServeRefusal(400, `the contextId '${contextId.slice(0, 100)}' cannot name tasks: ${problem}`);
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
