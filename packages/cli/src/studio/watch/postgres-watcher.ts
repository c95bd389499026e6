import type { PostgresEventStore } from "@agentloop/postgres";
import { blobRefsOf } from "../../core-api.js";
import { RunSet, type RunsPage, type StoreWatcher } from "./run-set.js";

interface Row {
  readonly run_id: string;
  readonly seq: number;
  readonly data: string;
}

/**
 * Watches a Postgres store without reading it whole: a run is read when it is looked at (its page,
 * or a page of the list, which the store gives newest first a page at a time), and from then on
 * only its new rows, when the server tells of a commit to it (`LISTEN`, through the store's
 * `watch`). Every change is told to the listeners, so the list page follows runs it has not read.
 */
export class PostgresWatcher implements StoreWatcher {
  readonly runs = new RunSet((runId) => ({
    where: `the blobs table of schema '${this.#store.schema}'`,
    read: (sha256) => this.#blobs.get(runId)?.get(sha256),
  }));
  readonly #store: PostgresEventStore;
  readonly #blobs = new Map<string, Map<string, Uint8Array>>();
  #stop: (() => Promise<void>) | null = null;

  constructor(store: PostgresEventStore) {
    this.#store = store;
  }

  async start(): Promise<void> {
    const watching = await this.#store.watch((runId) => {
      if (this.runs.get(runId) === undefined) this.runs.changed(runId);
      else void this.#read([runId]).catch(() => undefined);
    });
    this.#stop = () => watching.close();
  }

  /** Reads what changed in the runs it holds. */
  poke(): Promise<void> {
    return this.#read(this.runs.all().map((run) => run.runId));
  }

  /** Reads a run it does not hold yet (a run the page names, a run written a moment ago). */
  async load(runId: string): Promise<void> {
    await this.#read([runId]);
  }

  async page(limit: number, after: string | null): Promise<RunsPage> {
    const page = await this.#store.listPage({ limit, after });
    const ids = page.runs.map((run) => run.runId);
    await this.#read(ids.filter((runId) => this.runs.get(runId) === undefined));
    const runs = ids.flatMap((runId) => this.runs.get(runId) ?? []);
    return { runs, total: page.total, next: page.next };
  }

  close(): void {
    void this.#stop?.();
  }

  /** Reads the new rows of `runIds` (all of a run it did not hold), with the blobs they refer to, and tells of each run that grew. */
  async #read(runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    const from = runIds.map((runId) => this.runs.get(runId)?.length ?? 0);
    const { rows } = await this.#store.pool.query<Row>(
      `SELECT e.run_id, e.seq, e.data FROM ${this.#store.schema}.events e
       JOIN unnest($1::text[], $2::int[]) AS w(run_id, from_seq) ON e.run_id = w.run_id AND e.seq >= w.from_seq
       ORDER BY e.run_id, e.seq`,
      [runIds, from],
    );
    const values = rows.map((row) => ({ row, value: parse(row.data) }));
    await this.#fetchBlobs(values);
    const grown = new Set<string>();
    for (const { row, value } of values) {
      const run = this.runs.ensure(row.run_id);
      if (row.seq !== run.length || run.refused !== null) continue;
      if (value === undefined) run.refuse(`run '${row.run_id}': event ${row.seq} is not valid JSON`);
      else run.add(value);
      grown.add(row.run_id);
    }
    for (const runId of grown) this.runs.changed(runId);
  }

  async #fetchBlobs(values: readonly { row: Row; value: unknown }[]): Promise<void> {
    const wanted: [string, string][] = [];
    for (const { row, value } of values) {
      if (typeof value !== "object" || value === null) continue;
      for (const { ref } of blobRefsOf(value as Record<string, unknown>)) {
        if (!this.#blobs.get(row.run_id)?.has(ref.sha256)) wanted.push([row.run_id, ref.sha256]);
      }
    }
    if (wanted.length === 0) return;
    const { rows } = await this.#store.pool.query<{ run_id: string; sha256: string; data: Buffer }>(
      `SELECT b.run_id, b.sha256, b.data FROM ${this.#store.schema}.blobs b
       JOIN unnest($1::text[], $2::text[]) AS w(run_id, sha256) ON b.run_id = w.run_id AND b.sha256 = w.sha256`,
      [wanted.map(([runId]) => runId), wanted.map(([, sha256]) => sha256)],
    );
    for (const row of rows) {
      const blobs = this.#blobs.get(row.run_id) ?? new Map<string, Uint8Array>();
      blobs.set(row.sha256, new Uint8Array(row.data));
      this.#blobs.set(row.run_id, blobs);
    }
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
