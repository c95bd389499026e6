/**
 * A mistake the user can fix (an unknown command or flag, a missing file, bad JSON, a log that
 * cannot be used): printed as one line on stderr saying what to do, with exit code 2.
 */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** Exit code of a user error. */
export const USAGE_EXIT = 2;

/** The one-line text of anything thrown, without a stack trace. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message.split("\n")[0] ?? error.name;
  return String(error);
}
