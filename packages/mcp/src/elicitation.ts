import type { ToolAsk } from "@agentloop/core";
import type { Client } from "@modelcontextprotocol/client";

/**
 * What a client given to `mcpTools` declares to answer a server's questions (MCP elicitation in
 * form mode): `new Client(info, { capabilities: elicitationCapabilities })`. Capabilities are fixed
 * once a client connects, so `mcpTools` cannot add them itself.
 */
export const elicitationCapabilities = { elicitation: { form: {} } } as const;

/** The key of an answer that declines (`"decline"`) or cancels (`"cancel"`) a server's form instead of filling it in. */
export const ELICITATION_ACTION_KEY = "$action";

/** The result an elicitation gets from a person's answer: the form's content, or its decline or cancel. */
export type ElicitationReply =
  | { action: "accept"; content: Record<string, FieldValue> }
  | { action: "decline" | "cancel" };

/** What a form's field holds: the values an elicitation's content may carry. */
type FieldValue = string | number | boolean | string[];

/**
 * The shape a person's answer to a server's form must have: the form's `requestedSchema` (the
 * answer is the accepted content), or `{ "$action": "decline" | "cancel" }`.
 */
export function answerShape(requestedSchema: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const refusal = {
    type: "object",
    properties: { [ELICITATION_ACTION_KEY]: { enum: ["decline", "cancel"] } },
    required: [ELICITATION_ACTION_KEY],
  };
  return { type: "object", anyOf: [requestedSchema, refusal] };
}

/** The elicitation result a checked answer stands for. */
export function replyOf(answer: unknown): ElicitationReply {
  // Checked already against `answerShape`: the server's own schema holds its fields to these kinds.
  const content = (typeof answer === "object" && answer !== null ? answer : {}) as Record<string, FieldValue>;
  const action = content[ELICITATION_ACTION_KEY];
  if (action === "decline" || action === "cancel") return { action };
  return { action: "accept", content };
}

/** The elicitation result for a form no person filled in: the spec's `cancel` ("dismissed without an explicit choice"). */
const CANCEL = { action: "cancel" } as const;

/** What `mcpTools` says, once per client, when the client answers elicitations itself. */
export const OWN_HANDLER_WARNING =
  "this MCP client answers elicitation/create with its own handler, which is kept: a server's questions during a call go to it, not to the run (pass a client without one to have them asked through the run)";

/**
 * The calls of one client in flight, each with its tool's `ask`: a server's elicitation during a
 * call is asked through that call's `ask`. The protocol does not tell a client which of its calls
 * a server's request belongs to, so with several calls in flight on one client (or none) the
 * elicitation is answered `cancel` rather than asked under the wrong call; so is one whose call's
 * attempt ended (the run paused for the question, or stopped) before a person answered.
 */
export class AskingCalls {
  readonly #calls = new Set<{ readonly ask: ToolAsk; readonly signal: AbortSignal }>();

  /**
   * Answers `elicitation/create` on `client` through the call in flight; false when the client did
   * not declare elicitation, or answers it with a handler of its own, which is kept (`warn` is told).
   */
  listen(
    client: Partial<Pick<Client, "setRequestHandler" | "assertCanSetRequestHandler">>,
    warn: (message: string) => void = () => {},
  ): boolean {
    if (typeof client.setRequestHandler !== "function") return false;
    try {
      client.assertCanSetRequestHandler?.("elicitation/create");
    } catch {
      warn(OWN_HANDLER_WARNING);
      return false;
    }
    try {
      client.setRequestHandler("elicitation/create", async (request) => {
        const params = request.params as { mode?: string; message: string; requestedSchema?: Record<string, unknown> };
        if (params.mode !== undefined && params.mode !== "form") return { action: "decline" };
        const call = this.#only();
        if (call === undefined) return CANCEL;
        const schema = params.requestedSchema ?? { type: "object", properties: {} };
        const answer = await untilAborted(call.ask(params.message, answerShape(schema)), call.signal);
        return answer === ENDED ? CANCEL : replyOf(answer);
      });
      return true;
    } catch {
      // A client that did not declare the capability refuses the handler; its servers are told it cannot elicit.
      return false;
    }
  }

  /**
   * Runs `call` as a call in flight whose server may ask through `ask`, until it settles or
   * `signal` aborts (a call that asked ends so, and may never settle: its question went to a person).
   */
  async during<T>(ask: ToolAsk, signal: AbortSignal, call: () => Promise<T>): Promise<T> {
    const entry = { ask, signal };
    const forget = () => this.#calls.delete(entry);
    this.#calls.add(entry);
    signal.addEventListener("abort", forget, { once: true });
    try {
      return await call();
    } finally {
      forget();
      signal.removeEventListener("abort", forget);
    }
  }

  /** The one call in flight, or undefined when there is none or several (a question cannot be tied to one). */
  #only(): { readonly ask: ToolAsk; readonly signal: AbortSignal } | undefined {
    return this.#calls.size === 1 ? [...this.#calls][0] : undefined;
  }
}

/** What `untilAborted` gives when the call that asked ended first. */
const ENDED = Symbol("ended");

/** `work`, or `ENDED` once `signal` aborts (the call that asked is over; its server is answered `cancel`). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | typeof ENDED> {
  if (signal.aborted) return Promise.resolve(ENDED);
  return new Promise<T | typeof ENDED>((resolve, reject) => {
    const stop = () => resolve(ENDED);
    signal.addEventListener("abort", stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}
