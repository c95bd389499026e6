import type { AgentRequest, RunEvent } from "../../data/index.js";
import {
  answeredFrom,
  answerOf,
  askApprover,
  askPerson,
  compactContext,
  decidedAnswer,
  jitteredDelay,
  performCheck,
  performHandoff,
  recallMemory,
  retryWaited,
  UNANSWERED,
  waitRetry,
} from "../performers/index.js";
import type { LoopDesk } from "./desk.js";
import type { LoopAnswer, OnceWork, PromiseWork, SleepWork } from "./works.js";

/**
 * How a durable engine keeps a request's answer, so that a retried execution gets the same one:
 * `once`, the work runs once and its answer is journaled (a model call, a compaction, a tool, a
 * check); `promise`, the answer is a value someone gives from outside, kept under the request's key
 * (a decision); `sleep`, the answer comes when a durable timer fires (a retry's wait).
 */
export type DurableForm = "once" | "promise" | "sleep";

/** A kind of request the machine makes. */
export type RequestKind = AgentRequest["type"];

/** A request of one kind. */
export type RequestOf<K extends RequestKind> = Extract<AgentRequest, { type: K }>;

/** Where the machine stands as it asks: the model calls made so far, and where a call sits in the current reply. */
export interface RequestPlace {
  readonly steps: number;
  /** The call's place in the current reply, e.g. `2.0 c1` (the step, its index, its id). */
  place(callId: string): string;
}

/** What a request of form `F` is handed over with, besides its form and itself. */
export type WorkOf<F extends DurableForm> = F extends "once" ? OnceWork : F extends "promise" ? PromiseWork : SleepWork;

/** A row of the table: how a kind of request is made durable, its key, and how it is performed. */
interface Row<K extends RequestKind, F extends DurableForm> {
  readonly form: F;
  /** The key that names a request, unique among the run's requests of that form. */
  key(request: RequestOf<K>, at: RequestPlace): string;
  /**
   * Hands the request over to be performed (`hand`, in the row's form), with what the loop has at
   * its desk: at once, or once what the request logs first is logged (then the promise, which the
   * loop waits for before it takes the next request).
   */
  perform(request: RequestOf<K>, desk: LoopDesk, hand: (work: WorkOf<F>) => undefined): Promise<void> | undefined;
}

/** How one kind of request is made durable, named and performed. */
export type RequestEntry<K extends RequestKind> = Row<K, "once"> | Row<K, "promise"> | Row<K, "sleep">;

/**
 * Every request kind the machine makes, said once: its durable form, its key (`model 3`,
 * `tool 2.0 c1`, `decision 2.1 c2`) and its performer. The driver subscribes to the machine's
 * requests from this table, the run loop hands each one over as its row says, in its row's form,
 * and a durable engine journals the three forms, never the kinds: a new kind is a new row here,
 * with one of the forms.
 */
export const REQUEST_TABLE = {
  callModel: {
    form: "once",
    // A call that asks `prepareStep` first may answer with its settings: the call it then prepared has a key of its own.
    key: (request) => `model ${request.step}${request.prepare === true ? " prepare" : ""}`,
    perform: (request, desk, hand) => {
      desk.calling(request);
      const retriesItself = desk.context().retry !== null;
      if (request.prepare === true) {
        return hand({
          work: () => desk.preparer.prepareAndAsk(request, desk.stepStarted, desk.askModel),
          retriesItself,
        });
      }
      if (desk.ports.onEvent !== undefined) desk.tell({ type: "step-started", step: request.step });
      return hand({ work: () => desk.askModel(request), retriesItself });
    },
  },
  compactContext: {
    form: "once",
    key: (request) => `compaction ${request.step}`,
    perform: (request, desk, hand) => {
      const { summarizer = desk.ports.model } = desk.ports;
      return hand({ work: () => compactContext(summarizer, request, { signal: desk.signal }), retriesItself: false });
    },
  },
  runTool: {
    form: "once",
    // A call made again with the answers to the questions it asked is an attempt of its own.
    key: (request, at) =>
      `tool ${at.place(request.call.id)}${request.answers === undefined ? "" : ` again ${request.answers.length}`}`,
    // Only a tool's start, when it is logged, makes the loop wait before it takes the next request.
    perform: (request, desk, hand) => {
      const { call } = request;
      if (desk.interrupted.has(call.id)) return hand(desk.toolWork(request, true));
      const childRunId = desk.ports.children?.childRunIdOf(call);
      const started: RunEvent =
        childRunId === undefined
          ? { type: "tool.started", callId: call.id, name: call.name }
          : { type: "tool.started", callId: call.id, name: call.name, childRunId };
      const logged = desk.record(started);
      if (logged === undefined) {
        desk.tellLogged(started);
        return hand(desk.toolWork(request, false));
      }
      return logged.then(() => {
        if (desk.ended) return;
        // A journal that finds the start logged by an earlier attempt adds the call to the interrupted ones.
        if (desk.interrupted.has(call.id)) return hand(desk.toolWork(request, true));
        desk.tellLogged(started);
        return hand(desk.toolWork(request, false));
      });
    },
  },
  checkOutput: {
    form: "once",
    key: (_request, at) => `output ${at.steps}`,
    perform: (request, desk, hand) =>
      hand({ work: () => performCheck(request, desk.ports.checks, () => desk.signal), retriesItself: false }),
  },
  recallMemory: {
    form: "once",
    // A turn recalls once, for its message: the message's place names the recall.
    key: (request) => `recall ${request.message}`,
    perform: (request, desk, hand) =>
      hand({ work: () => recallMemory(desk.ports.memory, request), retriesItself: false }),
  },
  checkGuardrail: {
    form: "once",
    key: (request, at) => `guardrail ${at.steps} ${request.stage}.${request.index}`,
    perform: (request, desk, hand) => {
      desk.tell({ type: "guardrail-started", stage: request.stage, name: request.name });
      return hand({ work: () => performCheck(request, desk.ports.checks, () => desk.signal), retriesItself: false });
    },
  },
  requestDecision: {
    form: "promise",
    key: (request, at) => `decision ${at.place(request.call.id)}`,
    perform: (request, desk, hand) => {
      desk.tell({ type: "decision-requested", call: request.call });
      const { call } = request;
      const { approve } = desk.ports;
      const work = () => askApprover(approve, call);
      return hand({ work, first: firstGiven(approve, work), settle: (value) => decidedAnswer(call, value) });
    },
  },
  resumeChild: {
    form: "promise",
    // A call paused in its child again after a resume waits anew: its key names what waits below it.
    key: (request, at) =>
      `child ${at.place(request.call.id)} ${[...request.pending, ...request.questions].map((each) => each.id).join(" ")}`,
    perform: (request, desk, hand) => {
      const { children } = desk.ports;
      const { call } = request;
      const work = () => Promise.resolve<LoopAnswer>(children?.resume(call) ?? UNANSWERED);
      const settle = (): LoopAnswer => answerOf({ type: "tool.resumed", callId: call.id });
      return hand({ work, first: firstGiven(children, work), settle });
    },
  },
  waitRetry: {
    form: "sleep",
    key: (_request, at) => `retry wait ${at.steps}`,
    perform: (request, desk, hand) => {
      const delayMs = jitteredDelay(request);
      // The wait is for the step's next attempt; a run resumed in its wait has made no model request yet.
      desk.tell({ type: "retry-waiting", step: desk.context().steps + 1, delayMs });
      const work = () => waitRetry(delayMs, desk.signal);
      return hand({ work, delayOf: (random) => jitteredDelay(request, random), woke: retryWaited });
    },
  },
  prepareStep: {
    form: "once",
    key: (request) => `prepare ${request.step}`,
    perform: (request, desk, hand) => hand({ work: () => desk.preparer.prepare(request), retriesItself: false }),
  },
  handOff: {
    form: "once",
    // One handoff per reply at most: the reply's handoff call names it.
    key: (request, at) => `handoff ${at.place(request.call.id)}`,
    perform: (request, desk, hand) => {
      const { registry } = desk.agent(request.from);
      const { transcript } = desk.context();
      const work = () => Promise.resolve<LoopAnswer>(performHandoff(request, registry, transcript));
      return hand({ work, retriesItself: false });
    },
  },
  askUser: {
    form: "promise",
    key: (request, at) =>
      `question ${at.place(request.call.id)}${request.asked === undefined ? "" : ` asked ${request.asked}`}`,
    perform: (request, desk, hand) => {
      const { answers } = desk.ports;
      const work = () => askPerson(answers, request);
      return hand({ work, first: firstGiven(answers, work), settle: (value) => answeredFrom(request.call, value) });
    },
  },
} as const satisfies { readonly [K in RequestKind]: RequestEntry<K> };

/** The durable form of a kind of request. */
export type FormOf<K extends RequestKind> = (typeof REQUEST_TABLE)[K]["form"];

/** The requests whose kind has the durable form `F`. */
export type RequestInForm<F extends DurableForm> = {
  [K in RequestKind]: FormOf<K> extends F ? RequestOf<K> : never;
}[RequestKind];

/** The request kinds, in the table's order. */
export const REQUEST_KINDS = Object.freeze(Object.keys(REQUEST_TABLE)) as readonly RequestKind[];

/** The key of a request, as its kind's row says. */
export function requestKey(request: AgentRequest, at: RequestPlace): string {
  const entry = REQUEST_TABLE[request.type] as RequestEntry<RequestKind>;
  return entry.key(request, at);
}

/**
 * A promise performance's answer at hand: with a port the run was given (an approver, answers),
 * what it gives when that is the answer (`given`); without one, none, and the value comes from outside.
 */
function firstGiven(port: unknown, work: () => Promise<LoopAnswer>): (() => Promise<LoopAnswer | null>) | null {
  if (port === undefined) return null;
  return async () => {
    const answer = await work();
    return answer.type === "event" ? answer : null;
  };
}
