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

/**
 * The calls of one client in flight, each with its tool's `ask`: a server's elicitation during a
 * call is asked through that call's `ask`. The protocol does not tell a client which of its calls
 * a server's request belongs to, so with several calls in flight on one client the elicitation is
 * refused (the server sees an error) rather than asked under the wrong call.
 */
export class AskingCalls {
  readonly #calls = new Set<{ readonly ask: ToolAsk; readonly signal: AbortSignal }>();

  /** Answers `elicitation/create` on `client` through the call in flight; false when the client did not declare elicitation. */
  listen(client: Partial<Pick<Client, "setRequestHandler">>): boolean {
    if (typeof client.setRequestHandler !== "function") return false;
    try {
      client.setRequestHandler("elicitation/create", async (request) => {
        const params = request.params as { mode?: string; message: string; requestedSchema?: Record<string, unknown> };
        if (params.mode !== undefined && params.mode !== "form") return { action: "decline" };
        const { ask, signal } = this.#only();
        const schema = params.requestedSchema ?? { type: "object", properties: {} };
        return replyOf(await untilAborted(ask(params.message, answerShape(schema)), signal));
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

  #only(): { readonly ask: ToolAsk; readonly signal: AbortSignal } {
    if (this.#calls.size !== 1) {
      throw new Error(
        this.#calls.size === 0
          ? "no tool call is in flight to ask this question under"
          : "several tool calls are in flight on this client: the question cannot be tied to one of them",
      );
    }
    return [...this.#calls][0] as { readonly ask: ToolAsk; readonly signal: AbortSignal };
  }
}

/** `work`, or a rejection once `signal` aborts (the call that asked is over; its server is answered with an error). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}
