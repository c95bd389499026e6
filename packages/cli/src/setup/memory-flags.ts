import { UsageError } from "../cli-error.js";
import { type MemoryOptions, memoryTools, type ToolRegistry } from "../core-api.js";
import { importOptional } from "./optional-module.js";
import { isSqlitePath, nativeModuleError } from "./stores.js";

/** The flags that give a run memory across runs. */
export const MEMORY_FLAGS = {
  memory: { type: "string" },
  "memory-scope": { type: "string" },
} as const;

/** Help lines for `MEMORY_FLAGS`. */
export const MEMORY_HELP = `  --memory <file.db>       what the agent knows across runs, in a SQLite file: before each turn the memories
                           that match the message are recalled (logged, and shown to the model as quoted data),
                           and the model gets the tools remember and recall
  --memory-scope <id>      whose memories: a user's or a tenant's id (default: default)`;

/** The scope's resource when `--memory-scope` is not given. */
export const DEFAULT_MEMORY_SCOPE = "default";

/** A run's memory from its flags: the options to run with (the registry gets the memory tools), and how to close the file. */
export interface OpenedMemory {
  readonly memory: MemoryOptions | undefined;
  readonly flags: readonly string[];
  close(): void;
}

/**
 * Opens `--memory` (a SQLite file, made when missing) and adds `remember` and `recall` to the
 * registry, after the other tools; without the flag, nothing. A path that is not a `.db`/`.sqlite`
 * file, or `--memory-scope` without `--memory`, is a `UsageError`.
 */
export async function openMemory(
  values: { readonly memory?: string | undefined; readonly "memory-scope"?: string | undefined },
  registry: ToolRegistry,
): Promise<OpenedMemory> {
  const path = values.memory;
  const id = values["memory-scope"];
  if (path === undefined) {
    if (id !== undefined) throw new UsageError("--memory-scope needs --memory <file.db>");
    return { memory: undefined, flags: [], close: () => {} };
  }
  if (!isSqlitePath(path)) throw new UsageError(`--memory '${path}' must be a .db or .sqlite file`);
  if (id === "") throw new UsageError("--memory-scope must not be empty");
  const module = await importOptional<typeof import("@agentloop/sqlite")>(
    "@agentloop/sqlite",
    `the memory file '${path}'`,
    ["@agentloop/sqlite"],
  ).catch((error: unknown) => {
    throw nativeModuleError(error) ?? error;
  });
  let store: InstanceType<typeof module.SqliteMemoryStore>;
  try {
    store = new module.SqliteMemoryStore(path);
  } catch (error) {
    throw nativeModuleError(error) ?? new UsageError(`--memory '${path}' cannot be opened: ${String(error)}`);
  }
  const scope = { resource: id ?? DEFAULT_MEMORY_SCOPE };
  registry.add(...memoryTools(store, scope));
  const flags = ["--memory", path, ...(id === undefined ? [] : ["--memory-scope", id])];
  return { memory: { store, scope }, flags, close: () => store.close() };
}
