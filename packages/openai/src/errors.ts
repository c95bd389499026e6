/**
 * The server answered with something that is not a chat completion (no choices, no message): a
 * server or proxy bug the model cannot repair, so the run stops. `cause` holds the response body.
 */
export class OpenAIResponseError extends Error {
  override readonly name = "OpenAIResponseError";

  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}
