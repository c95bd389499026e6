import type { EventStore } from "../log/index.js";

/** How a reader of logs waits for them to grow: told by the store where it can (`watch`), else by looking again. */
export interface LogChanges {
  /** Settles once the store's watch listens (at once without one): a log read after it misses no change. */
  readonly ready: Promise<void>;
  /** Whether the store tells of commits: without, a reader must look again to see a log grow. */
  readonly told: () => boolean;
  /**
   * Resolves `true` once a log of `runIds` changed since the last wait (at once if one did
   * meanwhile), or `false` after `ms` milliseconds without; rejects when `signal` aborts.
   */
  wait(runIds: ReadonlySet<string>, ms: number, signal?: AbortSignal): Promise<boolean>;
  /** Stops listening; the store's watch ends with its last listener. */
  close(): Promise<void>;
}

interface SharedWatch {
  readonly listeners: Set<(runId: string) => void>;
  /** The store's watch, or `null` for a store that has none (or whose watch failed to start). */
  readonly handle: Promise<{ close(): Promise<void> } | null>;
}

// One watch per store for every reader in this process: a Postgres store's watch holds a connection.
const watches = new WeakMap<EventStore, SharedWatch>();

/** Listens to the commits of `store`'s logs for one reader; `close` it when done. */
export function logChanges(store: EventStore): LogChanges {
  const changed = new Set<string>();
  let wake: ((runId: string) => void) | undefined;
  const listener = (runId: string) => {
    changed.add(runId);
    wake?.(runId);
  };
  const shared = join(store, listener);
  let told = false;
  const ready = shared.handle.then((handle) => {
    told = handle !== null;
  });
  return {
    ready,
    told: () => told,
    wait: (runIds, ms, signal) => {
      for (const runId of runIds) {
        if (!changed.has(runId)) continue;
        changed.clear();
        return Promise.resolve(true);
      }
      return new Promise<boolean>((resolve, reject) => {
        const done = (value: boolean | Error) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", aborted);
          wake = undefined;
          changed.clear();
          if (value instanceof Error) reject(value);
          else resolve(value);
        };
        const aborted = () => done(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
        const timer = setTimeout(() => done(false), ms);
        wake = (runId) => {
          if (runIds.has(runId)) done(true);
        };
        if (signal?.aborted) aborted();
        else signal?.addEventListener("abort", aborted, { once: true });
      });
    },
    close: async () => {
      wake = undefined;
      shared.listeners.delete(listener);
      if (shared.listeners.size > 0) return;
      if (watches.get(store) === shared) watches.delete(store);
      await (await shared.handle)?.close();
    },
  };
}

function join(store: EventStore, listener: (runId: string) => void): SharedWatch {
  const known = watches.get(store);
  if (known !== undefined) {
    known.listeners.add(listener);
    return known;
  }
  const listeners = new Set([listener]);
  const tell = (runId: string) => {
    for (const each of listeners) each(runId);
  };
  // A watch that fails to start leaves its readers looking again, as a store without one does.
  const handle = store.watch === undefined ? Promise.resolve(null) : store.watch(tell).catch(() => null);
  const shared: SharedWatch = { listeners, handle };
  watches.set(store, shared);
  return shared;
}
