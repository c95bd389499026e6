import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ToolRegistry } from "@agentloop/core";
import { messageOf, UsageError } from "../cli-error.js";

/** What a tools module exports, as a default export or as `register`. */
export type RegisterTools = (registry: ToolRegistry) => void | Promise<void>;

/**
 * Imports the user's tools module (a JavaScript ES module, path relative to the working directory)
 * and lets its `register` export, or its default export, register tools on a fresh registry.
 * A missing file, a module that fails to load, a missing function or a bad tool schema is a `UsageError`.
 */
export async function loadTools(path: string): Promise<ToolRegistry> {
  const absolute = resolve(path);
  if (!existsSync(absolute)) throw new UsageError(`tools module '${path}' does not exist`);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`tools module '${path}' failed to load: ${messageOf(error)}`);
  }
  const register = module.register ?? module.default;
  if (typeof register !== "function") {
    throw new UsageError(
      `tools module '${path}' must export a function (registry) => void, as its default export or as 'register'`,
    );
  }
  const registry = new ToolRegistry();
  try {
    await (register as RegisterTools)(registry);
  } catch (error) {
    throw new UsageError(`tools module '${path}' failed to register its tools: ${messageOf(error)}`);
  }
  return registry;
}
