import { UsageError } from "../cli-error.js";

/** Imports a module by specifier; tests pass their own to stand in for a missing package. */
export type Importer = (specifier: string) => Promise<unknown>;

const importModule: Importer = (specifier) => import(specifier);

/**
 * Imports a package the CLI leaves to the user to install (a provider SDK and its adapter, the
 * SQLite store, tsx). When it, or a package it needs, is not installed, throws a one-line
 * `UsageError`: `<what> needs <packages>: npm i <packages>`. Any other failure is rethrown as it is.
 */
export async function importOptional<T>(
  specifier: string,
  what: string,
  packages: readonly string[],
  load: Importer = importModule,
): Promise<T> {
  try {
    return (await load(specifier)) as T;
  } catch (error) {
    if (!isNotInstalled(error)) throw error;
    const list = packages.join(" ");
    throw new UsageError(`${what} needs ${list}, which is not installed: npm i ${list}`);
  }
}

/** Whether an import failed because a package is not installed (ESM or CommonJS resolution). */
export function isNotInstalled(error: unknown): boolean {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}
