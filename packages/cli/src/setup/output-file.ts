import { existsSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileError, UsageError } from "../cli-error.js";

/** Refuses, before any work, an output path that cannot be written: a missing directory, or a directory in its place. */
export function checkOutputPath(path: string, what: string): void {
  const directory = dirname(resolve(path));
  if (!existsSync(directory)) {
    throw new UsageError(`cannot write ${what} '${path}': the directory '${dirname(path)}' does not exist`);
  }
  if (!statSync(directory).isDirectory())
    throw new UsageError(`cannot write ${what} '${path}': '${dirname(path)}' is not a directory`);
  if (existsSync(path) && statSync(path).isDirectory())
    throw new UsageError(`cannot write ${what} '${path}': it is a directory`);
}

/** Writes a file the user named; a file-system error is a one-line `UsageError` naming the path. */
export function writeOutput(path: string, text: string, what: string): void {
  checkOutputPath(path, what);
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw fileError(error, `write ${what}`, path);
  }
}
