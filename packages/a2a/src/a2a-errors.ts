import { A2AError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { refusalOf, type ServeOptions, ServeRefusal } from "@agentloop/core/serve";

/** Runs `work`, answering what it throws as an A2A error: a refusal in its own words, any other error masked unless `exposeErrors`. */
export async function masked<T>(serve: ServeOptions, runId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof A2AError) throw error;
    throw errorOf(refusalAsError(serve, runId, error));
  }
}

/** What a front door answers for `error` (`refusalOf`): a refusal with its status, or the failure as the client may see it (`onError` hears it). */
export function refusalAsError(serve: ServeOptions, runId: string, error: unknown): ServeRefusal | A2AError {
  const { status, message } = refusalOf(serve, runId, error);
  if (status === 400 || status === 404 || status === 409) return new ServeRefusal(status, message);
  return new A2AError(message);
}

/** A refusal of the core as the A2A error that says it: 404 a task not found, 400 a malformed request, 409 an operation the task's state does not allow. */
export function errorOf(refusal: ServeRefusal | A2AError): A2AError {
  if (refusal instanceof A2AError) return refusal;
  if (refusal.status === 404) return new TaskNotFoundError(refusal.message);
  if (refusal.status === 400) return new RequestMalformedError(refusal.message);
  return new UnsupportedOperationError(refusal.message);
}
