import { existsSync, statSync } from "node:fs";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { messageOf, UsageError } from "../cli-error.js";
import { ToolRegistry } from "../core-api.js";
import { importOptional } from "./optional-module.js";

/** What a tools module exports, as a default export or as `register`. */
export type RegisterTools = (registry: ToolRegistry) => void | Promise<void>;

const TYPESCRIPT = new Set([".ts", ".mts", ".cts", ".tsx"]);

/**
 * Imports the user's tools module (path relative to the working directory) and lets its `register`
 * export, or its default export, register tools on `registry` (default: a fresh one). A JavaScript module is
 * imported as it is; a TypeScript one (`.ts`, `.mts`, `.cts`) through tsx's `tsImport`, which
 * compiles it on the fly without registering a loader for the rest of the process (tsx is an
 * optional peer: not installed, it is a `UsageError` naming it). A missing file,
 * a module that fails to load, a missing function or a bad tool schema is a `UsageError`.
 */
export async function loadTools(path: string, registry: ToolRegistry = new ToolRegistry()): Promise<ToolRegistry> {
  const absolute = resolve(path);
  if (!existsSync(absolute)) throw new UsageError(`tools module '${path}' does not exist`);
  if (!statSync(absolute).isFile()) throw new UsageError(`tools module '${path}' is not a file`);
  let module: Record<string, unknown>;
  try {
    module = await importModule(absolute, path);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`tools module '${path}' failed to load: ${messageOf(error)}`);
  }
  const register = registerOf(module);
  if (register === undefined) {
    throw new UsageError(
      `tools module '${path}' must export a function (registry) => void, as its default export or as 'register'`,
    );
  }
  try {
    await register(registry);
  } catch (error) {
    throw new UsageError(`tools module '${path}' failed to register its tools: ${messageOf(error)}`);
  }
  return registry;
}

/** Imports a module of the user's (a `.ts` one through tsx); `what` names it in the error when tsx is missing. */
export async function importModule(
  absolute: string,
  path: string,
  what = "tools module",
): Promise<Record<string, unknown>> {
  const url = pathToFileURL(absolute).href;
  if (!TYPESCRIPT.has(extname(absolute).toLowerCase())) return (await import(url)) as Record<string, unknown>;
  const { tsImport } = await importOptional<typeof import("tsx/esm/api")>("tsx/esm/api", `${what} '${path}'`, ["tsx"]);
  return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
}

/** The module's `register` or default function; a CommonJS-compiled module nests its exports under `default`. */
function registerOf(module: Record<string, unknown>): RegisterTools | undefined {
  for (const candidate of [module.register, module.default]) {
    if (typeof candidate === "function") return candidate as RegisterTools;
  }
  const inner = module.default;
  if (typeof inner === "object" && inner !== null && inner !== module)
    return registerOf(inner as Record<string, unknown>);
  return undefined;
}
