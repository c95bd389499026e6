import type { MemorySettings, MemoryStore } from "../../data/index.js";
import { checkedScope, describeValue, type MemoryScope, sameScope } from "../../data/index.js";

/** Memories recalled before each turn when `memory.recall` is not given. */
export const DEFAULT_RECALL = 5;

/** A run's memory, as `runAgent` takes it: the store, whose memories, and how many are recalled before each turn. */
export interface MemoryOptions {
  readonly store: MemoryStore;
  readonly scope: MemoryScope;
  /** Memories recalled before each turn, at most (default 5); 0 recalls none (the memory tools still write and search). */
  readonly recall?: number;
}

/** The memory settings to log: the scope checked and copied, `recall` filled in; throws a `TypeError` or `RangeError` for a bad value. */
export function resolveMemory(options: MemoryOptions): MemorySettings {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`memory must be an object { store, scope, recall? }; got ${describeValue(options, true)}`);
  }
  checkStore(options.store);
  const recall = options.recall ?? DEFAULT_RECALL;
  if (typeof recall !== "number" || !Number.isSafeInteger(recall) || recall < 0) {
    throw new RangeError(`memory.recall must be a whole number, 0 or more; got ${describeValue(recall, true)}`);
  }
  return { scope: checkedScope(options.scope), recall };
}

/**
 * The store a resumed or continued run recalls from: `memory.store` as given. Its scope and recall
 * are the log's; a scope given that differs from it, or a scope given to a run started without
 * memory, is refused with a `TypeError` rather than silently ignored. The store alone, for a run
 * started without memory, is not needed: a server that gives every turn its store goes on with
 * conversations it started before it had memory.
 */
export function memoryStoreFor(
  given: Partial<MemoryOptions> | undefined,
  logged: MemorySettings | undefined,
): MemoryStore | undefined {
  if (given === undefined) return undefined;
  if (logged === undefined) {
    if (given.scope === undefined && given.recall === undefined) return undefined;
    throw new TypeError("the run was started without memory: it cannot take memory now (start a run with it)");
  }
  checkStore(given.store);
  if (given.scope !== undefined && !sameScope(checkedScope(given.scope), logged.scope)) {
    throw new TypeError("memory.scope differs from the scope the run was started with, which it keeps");
  }
  return given.store;
}

function checkStore(store: unknown): void {
  const methods = ["put", "get", "search", "delete"] as const;
  const given = store as Record<string, unknown> | null | undefined;
  if (given === null || typeof given !== "object" || methods.some((name) => typeof given[name] !== "function")) {
    throw new TypeError(
      `memory.store must be a MemoryStore (put, get, search, delete); got ${describeValue(store, true)}`,
    );
  }
}

/**
 * The store a continued run recalls from (`memoryStoreFor`), refused when the run recalls before
 * each turn and none is given: before the new message is logged, rather than at its recall.
 */
export function continuedMemoryStore(
  given: Partial<MemoryOptions> | undefined,
  logged: MemorySettings | undefined,
): MemoryStore | undefined {
  const store = memoryStoreFor(given, logged);
  if (store === undefined && (logged?.recall ?? 0) > 0) {
    throw new TypeError("the run was started with memory: give memory (its store) again to go on with it");
  }
  return store;
}
