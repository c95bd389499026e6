import { existsSync, readFileSync, statSync } from "node:fs";
import { UsageError } from "../cli-error.js";

/** The text of a file the user named, or a `UsageError` saying it is missing or not a file. */
export function readUserFile(path: string, what: string): string {
  if (!existsSync(path)) throw new UsageError(`${what} file '${path}' does not exist`);
  if (!statSync(path).isFile()) throw new UsageError(`${what} '${path}' is not a file`);
  return readFileSync(path, "utf8");
}

/** The JSON value in a file the user named, or a `UsageError` that quotes the parse problem. */
export function readJsonFile(path: string, what: string): unknown {
  const text = readUserFile(path, what);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    throw new UsageError(`${what} file '${path}' is not valid JSON: ${problem}`);
  }
}
