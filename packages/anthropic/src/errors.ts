import { adapterErrorClass } from "@agentloop/core/adapter";

/**
 * The server answered with something that is not a Messages API message (no `content` array): a
 * server or proxy bug the model cannot repair, so the run stops. `cause` holds the response body.
 */
export class AnthropicResponseError extends adapterErrorClass("AnthropicResponseError") {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

/**
 * The adapter refused to send a request it cannot honour: an option it fills in itself or that
 * the API refuses with thinking on, when the model is made; an empty user message, when it is
 * called. Nothing was sent; the message says what to change.
 */
export class AnthropicRequestError extends adapterErrorClass("AnthropicRequestError") {}

/**
 * A streamed reply broke off after the stream had started: the connection dropped, the server
 * sent an `error` event (e.g. `overloaded_error`), or the stream ended before `message_stop`.
 * `cause` holds the SDK's error; the partial reply is never used.
 */
export class AnthropicStreamError extends adapterErrorClass("AnthropicStreamError") {}
