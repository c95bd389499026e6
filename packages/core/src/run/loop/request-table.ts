import type { AgentRequest } from "../../data/index.js";

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

/** How one kind of request is made durable, and the key that names it, unique among the run's requests of that form. */
export interface RequestEntry<K extends RequestKind> {
  readonly form: DurableForm;
  key(request: RequestOf<K>, at: RequestPlace): string;
}

/**
 * Every request kind the machine makes, said once: its durable form and its key (`model 3`,
 * `tool 2.0 c1`, `decision 2.1 c2`). The driver subscribes to the machine's requests from this
 * table, the run loop hands each performance over in its form, and a durable engine journals the
 * three forms, never the kinds: a new kind is a new row here, with one of the forms.
 */
export const REQUEST_TABLE = {
  // A call that asks `prepareStep` first may answer with its settings: the call it then prepared has a key of its own.
  callModel: { form: "once", key: (request) => `model ${request.step}${request.prepare === true ? " prepare" : ""}` },
  compactContext: { form: "once", key: (request) => `compaction ${request.step}` },
  // A call made again with the answers to the questions it asked is an attempt of its own.
  runTool: {
    form: "once",
    key: (request, at) =>
      `tool ${at.place(request.call.id)}${request.answers === undefined ? "" : ` again ${request.answers.length}`}`,
  },
  checkOutput: { form: "once", key: (_request, at) => `output ${at.steps}` },
  // A turn recalls once, for its message: the message's place names the recall.
  recallMemory: { form: "once", key: (request) => `recall ${request.message}` },
  checkGuardrail: { form: "once", key: (request, at) => `guardrail ${at.steps} ${request.stage}.${request.index}` },
  requestDecision: { form: "promise", key: (request, at) => `decision ${at.place(request.call.id)}` },
  // A call paused in its child again after a resume waits anew: its key names what waits below it.
  resumeChild: {
    form: "promise",
    key: (request, at) =>
      `child ${at.place(request.call.id)} ${[...request.pending, ...request.questions].map((each) => each.id).join(" ")}`,
  },
  waitRetry: { form: "sleep", key: (_request, at) => `retry wait ${at.steps}` },
  prepareStep: { form: "once", key: (request) => `prepare ${request.step}` },
  // One handoff per reply at most: the reply's handoff call names it.
  handOff: { form: "once", key: (request, at) => `handoff ${at.place(request.call.id)}` },
  askUser: {
    form: "promise",
    key: (request, at) =>
      `question ${at.place(request.call.id)}${request.asked === undefined ? "" : ` asked ${request.asked}`}`,
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
