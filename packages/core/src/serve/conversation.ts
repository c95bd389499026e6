import type {
  AgentResult,
  Decision,
  Message,
  MessageContent,
  PendingQuestion,
  Principal,
  StoredEvent,
  ToolCall,
} from "../data/index.js";
import { replayRun } from "../log/index.js";
import { type AgentStreamEvent, continueAgent, readTree, replayedOf, resumeAgent, runAgent } from "../run/index.js";
import { isHeld } from "./follow-log.js";
import { drive, type LiveRun, liveRun } from "./live-runs.js";
import { mayUse, readOwned } from "./owner.js";
import { type RunFeed, runFeed } from "./run-feed.js";
import { ceilingFor, type ServeOptions, turnOptionsOf } from "./serve-options.js";
import { reportFailure, ServeRefusal } from "./served-errors.js";

/**
 * Where a conversation stands for the request that asks: no run under its id, another tenant's
 * run (answered as none), a turn this process drives now, a turn another writer drives now (another
 * process holds the run: its log so far), a run that has ended, one that waits for decisions on
 * `calls` and answers to `questions`, or one cut off (a model call that failed, a process that
 * died) with the calls of its last reply still `open`.
 */
export type ConversationState =
  | { readonly kind: "none" }
  | { readonly kind: "foreign" }
  | { readonly kind: "going"; readonly live: LiveRun }
  | { readonly kind: "held"; readonly events: readonly StoredEvent[] }
  | { readonly kind: "ended"; readonly result: AgentResult; readonly events: readonly StoredEvent[] }
  | {
      readonly kind: "waiting";
      readonly calls: readonly ToolCall[];
      readonly questions: readonly PendingQuestion[];
      readonly events: readonly StoredEvent[];
    }
  | { readonly kind: "cut-off"; readonly open: readonly ToolCall[]; readonly events: readonly StoredEvent[] };

/** What a request asks of a conversation: a new message, decisions and answers for what it waits on, or its result. */
export type ConversationAsk =
  | { readonly kind: "message"; readonly content: MessageContent; readonly regenerate?: boolean }
  | {
      readonly kind: "resume";
      readonly decisions: Readonly<Record<string, Decision>>;
      readonly answers: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: "read" };

/**
 * The conversation's next step: start a run under its id (with the messages of a conversation it
 * goes on from, if any); continue the ended run with a message; finish a cut-off turn from its log
 * (or read a run's result back), alone or then continue; resume the waiting run with decisions and
 * answers; or follow a turn still going to its end: one this process drives (`live`), or one
 * another process drives, from its log (`from`: where the turn starts).
 */
export type TurnStep =
  | { readonly kind: "start"; readonly content: MessageContent; readonly history?: readonly Message[] }
  | { readonly kind: "continue"; readonly content: MessageContent }
  | { readonly kind: "finish" }
  | { readonly kind: "finish-then-continue"; readonly content: MessageContent; readonly open: readonly ToolCall[] }
  | {
      readonly kind: "resume";
      readonly decisions: Readonly<Record<string, Decision>>;
      readonly answers: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: "follow"; readonly live: LiveRun }
  | { readonly kind: "follow-log"; readonly from: number };

/**
 * Reads where conversation `runId` stands for a request from `principal` (`undefined`: none): the
 * runs this process drives first, then the log. A run the principal may not use (`mayUse`) is
 * `foreign` whatever it holds, so nothing of it is read further. A log that stops mid-turn is
 * `held` while another writer holds the run (asked of the store's lock: `isHeld`), else cut off.
 */
export async function conversationState(
  serve: Pick<ServeOptions, "store">,
  principal: Principal | undefined,
  runId: string,
): Promise<ConversationState> {
  const { store } = serve;
  const live = liveRun(store, runId);
  if (live !== undefined) return mayUse(principal, live.owner) ? { kind: "going", live } : { kind: "foreign" };
  const events = await readOwned(store, principal, runId);
  if (events === null) return { kind: "foreign" };
  if (events.length === 0) return { kind: "none" };
  const replay = replayRun(events, { runId });
  if (replay.result !== null) return { kind: "ended", result: replay.result, events };
  const tree = await readTree(store, runId, { events, root: replayedOf(replay), waitingOnly: true });
  const calls = tree.treeWaiting;
  const questions = tree.treeQuestions;
  if (calls.length > 0 || questions.length > 0) return { kind: "waiting", calls, questions, events };
  if (await isHeld(store, runId)) return { kind: "held", events };
  return { kind: "cut-off", open: openCalls(events), events };
}

/**
 * Decides what `ask` does to a conversation in `state` (pure): the one table every front door
 * answers by. `noun` and `runId` name the conversation in a refusal ("chat 'c'"). Another tenant's
 * run is answered as no run at all (404), except that a message cannot start a run under its id.
 */
export function decideTurn(
  noun: string,
  runId: string,
  state: ConversationState,
  ask: ConversationAsk,
): TurnStep | ServeRefusal {
  const name = `${noun} '${runId}'`;
  if (state.kind === "going") {
    if (ask.kind === "read") return { kind: "follow", live: state.live };
    return new ServeRefusal(409, `a turn of ${name} is still going: follow it, or wait for its end`);
  }
  if (state.kind === "held") {
    if (ask.kind === "read") return { kind: "follow-log", from: turnStartOf(state.events) };
    return new ServeRefusal(409, `a turn of ${name} is still going in another process: follow it, or wait for its end`);
  }
  if (ask.kind === "message") {
    switch (state.kind) {
      case "none":
        return { kind: "start", content: ask.content };
      case "foreign":
        return new ServeRefusal(
          409,
          `${name} cannot be started: the id is taken; start the conversation under another`,
        );
      case "ended":
        return { kind: "continue", content: ask.content };
      case "cut-off":
        // The page's regenerate asks for the cut-off answer; a new message comes after it.
        return ask.regenerate === true
          ? { kind: "finish" }
          : { kind: "finish-then-continue", content: ask.content, open: state.open };
      case "waiting":
        return new ServeRefusal(409, `${name} is not finished: it waits for ${waitsFor(state)}; give those first`);
    }
  }
  if (state.kind === "none" || state.kind === "foreign") {
    return new ServeRefusal(404, `no ${noun} '${runId}' is held`);
  }
  if (ask.kind === "read") return { kind: "finish" };
  if (state.kind !== "waiting") {
    const why = state.kind === "ended" ? "its turn has ended; send a new message" : "nothing of it waits";
    return new ServeRefusal(409, `${name} waits for no decision or answer${givenIds(ask)}: ${why}`);
  }
  const strange = [
    ...Object.keys(ask.decisions).filter((id) => !state.calls.some((call) => call.id === id)),
    ...Object.keys(ask.answers).filter((id) => !state.questions.some((question) => question.id === id)),
  ];
  if (strange.length > 0) {
    const listed = strange.map((id) => `'${id}'`).join(", ");
    return new ServeRefusal(409, `${name} has nothing waiting on ${listed}: it waits for ${waitsFor(state)}`);
  }
  if (Object.keys(ask.decisions).length === 0 && Object.keys(ask.answers).length === 0) {
    return new ServeRefusal(409, `${name} waits for ${waitsFor(state)}, and the message answers none of them`);
  }
  return { kind: "resume", decisions: ask.decisions, answers: ask.answers };
}

/**
 * Decides a message that starts run `runId` as the next part of another conversation, `previous`
 * (pure): a protocol whose units of work end for good (an A2A task) keeps a conversation as a
 * chain of runs. It starts as `decideTurn` decides, given the whole transcript of `previous` as
 * its history when that run has ended (none when there is no such run); a `previous` still going,
 * waiting or cut off is refused (409: answer or finish it first), and another tenant's as a taken id.
 */
export function decideFollowOn(
  noun: string,
  runId: string,
  state: ConversationState,
  previous: { readonly runId: string; readonly state: ConversationState },
  content: MessageContent,
): Extract<TurnStep, { kind: "start" }> | ServeRefusal {
  if (state.kind !== "none") {
    return new ServeRefusal(409, `${noun} '${runId}' cannot be started: the id is taken; start under another`);
  }
  const before = previous.state;
  const name = `${noun} '${previous.runId}'`;
  switch (before.kind) {
    case "none":
      return { kind: "start", content };
    case "ended": {
      const history = before.result.messages.filter((message) => message.role !== "system");
      return history.length === 0 ? { kind: "start", content } : { kind: "start", content, history };
    }
    case "foreign":
      return new ServeRefusal(409, `${noun} '${runId}' cannot be started: the id is taken; start under another`);
    case "going":
      return new ServeRefusal(409, `${name} is still going: follow it, or wait for its end`);
    case "held":
      return new ServeRefusal(409, `${name} is still going in another process: follow it, or wait for its end`);
    case "waiting":
      return new ServeRefusal(409, `${name} waits for ${waitsFor(before)}: give those on it first`);
    case "cut-off":
      return new ServeRefusal(409, `${name} was cut off: send the message on it to finish it first`);
  }
}

/** A turn under way: its step, the run this process drives for it, and the run's events as they come. */
export interface Turn {
  readonly step: Exclude<TurnStep, { kind: "follow" | "follow-log" }>;
  readonly live: LiveRun;
  readonly feed: RunFeed;
}

/**
 * Reads the conversation's state, decides `ask`, and drives the step it comes to (`takeTurn`):
 * the whole of a request's deciding, for every door. A `follow` or `follow-log` comes back undriven, for the door to follow.
 */
export async function nextTurn(
  serve: ServeOptions,
  principal: Principal | undefined,
  runId: string,
  ask: ConversationAsk,
  settings: { readonly noun: string; readonly signal?: AbortSignal },
): Promise<Turn | Extract<TurnStep, { kind: "follow" | "follow-log" }> | ServeRefusal> {
  const step = decideTurn(settings.noun, runId, await conversationState(serve, principal, runId), ask);
  if (step instanceof ServeRefusal || step.kind === "follow" || step.kind === "follow-log") return step;
  return takeTurn(serve, principal, runId, step, settings);
}

/**
 * Drives `step` as run `runId` for `principal`, claimed at once so that a second request for the
 * conversation meanwhile is refused (409). Every step is given the server's options: a new run all
 * of them and its owner, every later one what its log cannot hold (`turnOptionsOf`). A failure that
 * is not a refusal goes to `onError`.
 */
export function takeTurn(
  serve: ServeOptions,
  principal: Principal | undefined,
  runId: string,
  step: Turn["step"],
  settings: { readonly noun: string; readonly signal?: AbortSignal },
): Turn | ServeRefusal {
  if (liveRun(serve.store, runId) !== undefined) {
    return new ServeRefusal(
      409,
      `a turn of ${settings.noun} '${runId}' is still going: follow it, or wait for its end`,
    );
  }
  let live: LiveRun | undefined;
  const feed = runFeed((onEvent) => {
    live = drive(
      serve.store,
      runId,
      principal,
      (signal) => {
        const both = settings.signal === undefined ? signal : AbortSignal.any([signal, settings.signal]);
        return performStep(serve, principal, runId, step, { onEvent, signal: both });
      },
      (error) => reportFailure(serve, runId, error),
    );
    return live.done;
  });
  return { step, live: live as LiveRun, feed };
}

/**
 * Runs `step` of conversation `runId` (the effect of a decision): `runAgent` for a new run with
 * every served option and the principal as its owner, `continueAgent` or `resumeAgent` with what
 * the log cannot hold for any later step, so that a resumed turn gets exactly what a started one got.
 */
export function performStep(
  serve: ServeOptions,
  principal: Principal | undefined,
  runId: string,
  step: Turn["step"],
  listen: { readonly onEvent?: (event: AgentStreamEvent) => void; readonly signal?: AbortSignal },
): Promise<AgentResult> {
  const { model, registry, store } = serve;
  const ceiling = ceilingFor(serve, principal);
  const again = { ...turnOptionsOf(serve.options), store, ...ceiling, ...listen };
  switch (step.kind) {
    case "start": {
      const owner = principal === undefined ? {} : { owner: principal };
      const history = step.history === undefined ? {} : { history: step.history };
      const memory = serve.options?.memory;
      const scoped =
        memory === undefined || serve.memoryScope === undefined
          ? {}
          : { memory: { ...memory, scope: serve.memoryScope(principal, runId) } };
      return runAgent(step.content, model, registry, {
        ...serve.options,
        ...scoped,
        ...history,
        store,
        runId,
        ...owner,
        ...ceiling,
        ...listen,
      });
    }
    case "continue":
      return continueAgent(runId, step.content, model, registry, again);
    case "resume":
      return resumeAgent(runId, model, registry, { ...again, decisions: step.decisions, answers: step.answers });
    case "finish":
      return resumeAgent(runId, model, registry, again);
    case "finish-then-continue":
      return finishThenContinue(serve, principal, runId, step.content, listen);
  }
}

/**
 * Finishes a cut-off turn from its log, then continues with the new message in the same stream:
 * the finished turn's end is told only if the run stops there, waiting for a person. Nothing the
 * log holds is asked or run again.
 */
async function finishThenContinue(
  serve: ServeOptions,
  principal: Principal | undefined,
  runId: string,
  content: MessageContent,
  listen: { readonly onEvent?: (event: AgentStreamEvent) => void; readonly signal?: AbortSignal },
): Promise<AgentResult> {
  const { model, registry, store } = serve;
  const again = {
    ...turnOptionsOf(serve.options),
    store,
    ...ceilingFor(serve, principal),
    ...(listen.signal ? { signal: listen.signal } : {}),
  };
  let end: AgentStreamEvent | undefined;
  const finished = await resumeAgent(runId, model, registry, {
    ...again,
    onEvent: (event) => {
      if (event.type === "finished" && event.origin === undefined) end = event;
      else listen.onEvent?.(event);
    },
  });
  if (finished.status === "awaiting_approval" || finished.status === "awaiting_input") {
    if (end !== undefined) listen.onEvent?.(end);
    return finished;
  }
  return continueAgent(runId, content, model, registry, {
    ...again,
    ...(listen.onEvent ? { onEvent: listen.onEvent } : {}),
  });
}

/** Where the log's last turn starts: the position of its `run.started` or `user.messaged` (0 for none). */
export function turnStartOf(events: readonly StoredEvent[]): number {
  for (let position = events.length - 1; position >= 0; position--) {
    const type = events[position]?.type;
    if (type === "run.started" || type === "user.messaged") return position;
  }
  return 0;
}

/** The calls of a cut-off turn's last reply that have no result logged: the finished turn tells their results. */
function openCalls(events: readonly StoredEvent[]): ToolCall[] {
  let open: ToolCall[] = [];
  for (const event of events) {
    if (event.type === "model.replied") open = [...event.reply.toolCalls];
    else if (event.type === "tool.finished") open = open.filter((call) => call.id !== event.callId);
  }
  return open;
}

function waitsFor(state: Extract<ConversationState, { kind: "waiting" }>): string {
  const parts = [];
  if (state.calls.length > 0) parts.push(`decisions on ${state.calls.map(({ id }) => `'${id}'`).join(", ")}`);
  if (state.questions.length > 0) parts.push(`answers to ${state.questions.map(({ id }) => `'${id}'`).join(", ")}`);
  return parts.join(" and ");
}

function givenIds(ask: Extract<ConversationAsk, { kind: "resume" }>): string {
  const ids = [...Object.keys(ask.decisions), ...Object.keys(ask.answers)];
  return ids.length === 0 ? "" : ` (on ${ids.map((id) => `'${id}'`).join(", ")})`;
}
