/**
 * The server answered with something that is not a Messages API message (no `content` array): a
 * server or proxy bug the model cannot repair, so the run stops. `cause` holds the response body.
 */
export class AnthropicResponseError extends Error {
  override readonly name = "AnthropicResponseError";

  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}
