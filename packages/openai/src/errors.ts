import { adapterErrorClass } from "@agentloop/core/adapter";

/**
 * The server answered with something that is not a chat completion (no choices, no message): a
 * server or proxy bug the model cannot repair, so the run stops. `cause` holds the response body.
 */
export class OpenAIResponseError extends adapterErrorClass("OpenAIResponseError") {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

/**
 * The adapter refused to send a request it cannot honour: an option that breaks the one-reply
 * contract (`n`, `stream_options`...) when the model is made, or an empty user message when it is
 * called. Nothing was sent; the message says what to change.
 */
export class OpenAIRequestError extends adapterErrorClass("OpenAIRequestError") {}

/**
 * A streamed reply broke off: the connection dropped, the server sent an error event, or the
 * stream ended before its last chunk. `cause` holds the underlying error when there is one; the
 * partial reply is never used.
 */
export class OpenAIStreamError extends adapterErrorClass("OpenAIStreamError") {}
