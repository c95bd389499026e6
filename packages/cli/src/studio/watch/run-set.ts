import { type BlobSource, TREE_DEPTH_LIMIT } from "../../core-api.js";
import { WatchedRun } from "./watched-run.js";

/** How many runs up a tree a change is told (a store's logs may name each other in a loop). */
const MAX_DEPTH = TREE_DEPTH_LIMIT;

/** The runs a store watcher keeps, and who hears that one changed. */
export class RunSet {
  readonly #runs = new Map<string, WatchedRun>();
  readonly #listeners = new Set<(runId: string) => void>();
  readonly #blobs: (runId: string) => BlobSource;

  /** `blobs` gives where each run's blobs are read from. */
  constructor(blobs: (runId: string) => BlobSource) {
    this.#blobs = blobs;
  }

  /** Every run, in no particular order. */
  all(): WatchedRun[] {
    return [...this.#runs.values()];
  }

  get(runId: string): WatchedRun | undefined {
    return this.#runs.get(runId);
  }

  /** The run, made empty when it is new. */
  ensure(runId: string): WatchedRun {
    let run = this.#runs.get(runId);
    if (run === undefined) {
      run = new WatchedRun(runId, this.#blobs(runId));
      this.#runs.set(runId, run);
    }
    return run;
  }

  /** Forgets a run (its log was cut shorter, or removed) and gives the new, empty one. */
  reset(runId: string): WatchedRun {
    this.#runs.delete(runId);
    return this.ensure(runId);
  }

  /**
   * Tells every listener that `runId` changed, and that the runs above it did: an agent tool's
   * child that pauses or goes on changes what its parent's tree waits on.
   */
  changed(runId: string): void {
    let id: string | undefined = runId;
    for (let depth = 0; id !== undefined && depth < MAX_DEPTH; depth++) {
      for (const listener of this.#listeners) listener(id);
      id = this.#runs.get(id)?.calledBy?.runId;
    }
  }

  /** Listens for changes; returns the function that stops listening. */
  listen(listener: (runId: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** A page of the list of runs, newest first: `next` asks for the page after it (`null` on the last). */
export interface RunsPage {
  readonly runs: readonly WatchedRun[];
  /** Runs the store holds in all. */
  readonly total: number;
  readonly next: string | null;
}

/**
 * What the studio watches a store with: the JSONL and the SQLite watchers hold every run; the
 * Postgres watcher holds the runs looked at (`load`, `page`), however many the store keeps.
 */
export interface StoreWatcher {
  readonly runs: RunSet;
  /** Reads what the store holds now (or, with `page`, what it needs to) and starts watching it. */
  start(): Promise<void>;
  /** Reads what changed since the last look, now (after the studio wrote to the store itself). */
  poke(): void | Promise<void>;
  /** Reads a run the watcher does not hold yet; without it, `poke` finds it. */
  load?(runId: string): Promise<void>;
  /** A page of runs read from the store; without it, the page is cut from the runs it holds. */
  page?(limit: number, after: string | null): Promise<RunsPage>;
  close(): void;
}
