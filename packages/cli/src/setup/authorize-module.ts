import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { messageOf, UsageError } from "../cli-error.js";
import type { ServeOptions } from "../core-api.js";
import { importModule } from "./tools-module.js";

/** Who is asking, as a served agent's `authorize` tells it: a principal, or a response that refuses. */
export type Authorize = NonNullable<ServeOptions["authorize"]>;

/** The `--authorize` flag, as `parseArgs` declares it (`serve` and `studio` share it). */
export const AUTHORIZE_FLAG = { authorize: { type: "string" } } as const;

/** Help lines for `--authorize`. */
export const AUTHORIZE_HELP = `  --authorize <module>     who is asking: a module (.js, .mjs, .ts) whose default export is
                           (request: Request) => { tenant, user? } | Response (or a Promise of one);
                           a Response refuses the request as it is (401, 403). Each run is then its
                           tenant's alone: another tenant's request on it is answered as one on a run
                           that does not exist (404)`;

/**
 * Imports the `--authorize` module (path relative to the working directory) and gives its default
 * export. A missing file, a module that fails to load or one whose default export is not a
 * function is a one-line `UsageError`; what the function returns is checked per request by core.
 */
export async function loadAuthorize(path: string): Promise<Authorize> {
  const absolute = resolve(path);
  if (!existsSync(absolute) || !statSync(absolute).isFile()) {
    throw new UsageError(`--authorize: module '${path}' does not exist`);
  }
  let module: Record<string, unknown>;
  try {
    module = await importModule(absolute, path, "--authorize module");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--authorize: module '${path}' failed to load: ${messageOf(error)}`);
  }
  const authorize = defaultFunction(module);
  if (authorize === undefined) {
    throw new UsageError(
      `--authorize: module '${path}' must export as its default a function (request) => { tenant, user? } | Response`,
    );
  }
  return authorize;
}

/** The module's default export when it is a function; a CommonJS-compiled module nests it under `default`. */
function defaultFunction(module: Record<string, unknown>): Authorize | undefined {
  const candidate = module.default;
  if (typeof candidate === "function") return candidate as Authorize;
  if (typeof candidate === "object" && candidate !== null && candidate !== module) {
    return defaultFunction(candidate as Record<string, unknown>);
  }
  return undefined;
}
