import { dirname } from "node:path";

/**
 * A mistake the user can fix (an unknown command or flag, a missing file, bad JSON, a log that
 * cannot be used): printed as one line on stderr saying what to do, with exit code 2.
 */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** Exit code of a user error. */
export const USAGE_EXIT = 2;

/**
 * A file-system error (`ENOENT`, `EACCES`, `EISDIR`, ...) as a `UsageError` that names the path in
 * one line: `cannot write report '/no/such/dir/x.html': the directory '/no/such/dir' does not exist`.
 */
export function fileError(error: unknown, what: string, path: string): Error {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
  const why = FILE_PROBLEMS[code];
  if (why === undefined) return error instanceof Error ? error : new Error(String(error));
  return new UsageError(`cannot ${what} '${path}': ${why(path)}`);
}

const FILE_PROBLEMS: Readonly<Record<string, (path: string) => string>> = {
  ENOENT: (path) => `the directory '${dirname(path)}' does not exist`,
  ENOTDIR: (path) => `a part of '${dirname(path)}' is not a directory`,
  EISDIR: () => "it is a directory",
  EACCES: () => "permission denied",
  EPERM: () => "operation not permitted",
  EROFS: () => "the file system is read-only",
  ENOSPC: () => "no space left on the device",
};

/** The one-line text of anything thrown, without a stack trace. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message.split("\n")[0] ?? error.name;
  return String(error);
}
