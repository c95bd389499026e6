import { EventLogError, type EventStore, type RunLock } from "@agentloop/core";
import {
  type BlobSource,
  blobRefsOf,
  checkAppend,
  checkPrune,
  commitAppendGroup,
  lastBrokenRow,
  loggedEvent,
  parseEventLog,
  type RunSummary,
  type SpendLedger,
  type StoredEvent,
  summarize,
  type WaitingAppend,
} from "@agentloop/core/store";
import pg from "pg";
import type { PgPool, PgPoolClient, PgQueryable } from "./pg-types.js";
import { checkSchemaName, ensureLayout } from "./postgres-layout.js";
import { PostgresLocks } from "./postgres-locks.js";
import { PostgresSpendLedger } from "./postgres-spending.js";
import { type EventRow, eventOf, rowTime } from "./row-event.js";
import { storeLabel } from "./store-label.js";
import { transaction } from "./transaction.js";
import { WriterSession } from "./writer-session.js";

/** Where the store's server is: a pool of yours (the store keeps one of its clients while it writes), or a connection string (the store makes its own pool and ends it on `close`). */
export type PostgresConnection = { readonly pool: PgPool } | { readonly connectionString: string };

/** Settings of `PostgresEventStore`. */
export interface PostgresEventStoreSettings {
  /** The schema that holds the store's tables, created when missing (default `agentloop`): lower-case letters, digits and `_`. */
  readonly schema?: string;
}

/** One page of runs, newest first: `next` goes as `after` to ask for the page after it (`null` on the last page). */
export interface RunPage {
  readonly runs: RunSummary[];
  /** Runs the store holds in all. */
  readonly total: number;
  readonly next: string | null;
}

const RUN_BATCH = 500;

/**
 * Runs' event logs in a PostgreSQL schema that any number of processes and machines share (pg):
 * one row per event, holding the event's JSON as written. Appends are committed in groups: every
 * append made while the event loop turns goes into one transaction on the store's own session,
 * which checks each event's `seq` against its log's end, and each append resolves once that
 * transaction is committed. One writer per run: `acquire` takes a session advisory lock of the
 * server (freed by the server when that session ends, however its process ended); another store's
 * `acquire` or `append` meanwhile is refused naming the holder, and a store whose session was lost
 * cannot append to the runs it held until it acquires them again. A row that is corrupt is reported
 * by `read`, `append` refuses to extend such a log, and `repair` drops the row when it is the last.
 * The bytes of an image or file part are kept once per run in the `blobs` table, by their SHA-256.
 */
export class PostgresEventStore implements EventStore {
  readonly schema: string;
  /** The pool the store reads through. */
  readonly pool: PgPool;
  /** Owners' spending, for spending ceilings: the schema's `spending` table, shared by every process on the schema (see `PostgresSpendLedger`). */
  readonly spending: SpendLedger;
  readonly #label: string;
  readonly #ownsPool: boolean;
  readonly #locks: PostgresLocks;
  readonly #session: WriterSession;
  #ready: Promise<void> | null = null;
  #closed = false;
  /** Runs this object holds the lock of, by token. */
  readonly #held = new Map<string, string>();
  /** Runs whose lock this object lost with its session, by token, and why. */
  readonly #lost = new Map<string, { readonly token: string; readonly why: string }>();
  /** Validated length of each run this object appended to; an append re-checks it against the log's last seq. */
  readonly #lengths = new Map<string, number>();
  #waiting: WaitingAppend[] = [];

  constructor(connection: PostgresConnection, settings: PostgresEventStoreSettings = {}) {
    this.schema = checkSchemaName(settings.schema ?? "agentloop");
    const connectionString = "connectionString" in connection ? connection.connectionString : undefined;
    this.#label = storeLabel(this.schema, connectionString);
    this.#ownsPool = connectionString !== undefined;
    if ("pool" in connection) {
      this.pool = connection.pool;
    } else {
      // Keepalives on this side too: a server gone silent is noticed while the session is idle.
      const pool = new pg.Pool({ connectionString, max: 10, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
      // A pooled connection that fails while idle is dropped by the pool: the next query opens another.
      pool.on("error", () => undefined);
      this.pool = pool as unknown as PgPool;
    }
    this.#locks = new PostgresLocks(this.schema, this.#label);
    this.spending = new PostgresSpendLedger(this.pool, this.schema, () => this.#opened());
    this.#session = new WriterSession(this.pool, (why) => {
      for (const [runId, token] of this.#held) this.#lost.set(runId, { token, why });
      this.#held.clear();
      this.#lengths.clear();
    });
  }

  async append(runId: string, event: StoredEvent): Promise<void> {
    await this.#opened();
    return new Promise((resolve, reject) => {
      if (this.#waiting.length === 0) setImmediate(() => void this.#commit());
      this.#waiting.push({ runId, event, resolve, reject });
    });
  }

  async read(runId: string): Promise<StoredEvent[]> {
    await this.#opened();
    return this.#decode(runId, (await this.#rows(this.pool, [runId])).get(runId) ?? [], this.pool);
  }

  /** Every run with a `run.started`, by run id; a broken run is summarized from its intact events. */
  async list(): Promise<RunSummary[]> {
    await this.#opened();
    const ids = await this.pool.query<{ run_id: string }>(
      `SELECT DISTINCT run_id FROM ${this.schema}.events ORDER BY run_id`,
    );
    return this.#summaries(ids.rows.map((row) => row.run_id));
  }

  /**
   * Runs newest first (by the time of their `run.started`), `limit` at a time: a page costs the
   * same however many runs the store holds. `after` is the `next` of the page before.
   */
  async listPage(options: { readonly limit: number; readonly after?: string | null }): Promise<RunPage> {
    await this.#opened();
    const limit = Math.max(1, Math.min(Math.trunc(options.limit), 1000));
    const [at, runId] = options.after ? options.after.split("\n") : [];
    const params: unknown[] = [limit + 1];
    let where = "seq = 0";
    if (at !== undefined && runId !== undefined) {
      where += " AND (at, run_id) < ($2, $3)";
      params.push(at, runId);
    }
    const [page, count] = await Promise.all([
      this.pool.query<{ run_id: string; at: string }>(
        `SELECT run_id, at FROM ${this.schema}.events WHERE ${where} ORDER BY at DESC, run_id DESC LIMIT $1`,
        params,
      ),
      this.pool.query<{ total: string }>(`SELECT count(*) AS total FROM ${this.schema}.events WHERE seq = 0`),
    ]);
    const shown = page.rows.slice(0, limit);
    const last = shown.at(-1);
    const byId = new Map((await this.#summaries(shown.map((row) => row.run_id))).map((run) => [run.runId, run]));
    return {
      runs: shown.flatMap((row) => byId.get(row.run_id) ?? []),
      total: Number(count.rows[0]?.total ?? 0),
      next: page.rows.length > limit && last !== undefined ? `${last.at}\n${last.run_id}` : null,
    };
  }

  async acquire(runId: string): Promise<RunLock> {
    await this.#opened();
    // A run this object holds is refused too: the server's lock is the session's, which holds it already.
    if (this.#held.has(runId)) throw await this.#locks.refusal(this.pool, runId);
    const token = await this.#session.run((client) => this.#locks.take(client, runId));
    if (token instanceof EventLogError) throw token;
    this.#held.set(runId, token);
    this.#lost.delete(runId);
    this.#lengths.delete(runId);
    return {
      runId,
      release: async () => {
        if (this.#lost.get(runId)?.token === token) this.#lost.delete(runId);
        if (this.#held.get(runId) !== token) return;
        this.#held.delete(runId);
        await this.#session.run((client) => this.#locks.release(client, runId, token)).catch(() => undefined);
      },
    };
  }

  /**
   * Replaces the run's rows by its anchor's in one transaction (another session reads the old log
   * or the new one), and drops the blobs only the old rows referred to. Refused, changing nothing,
   * while another writer holds the run or when the log holds another number of events than `length`.
   */
  async prune(runId: string, anchor: StoredEvent, length: number): Promise<void> {
    await this.#opened();
    await this.#session.run((client) =>
      transaction(client, async () => {
        const refused = await this.#check(client, runId);
        if (refused !== null) throw refused;
        checkPrune(runId, await this.#end(client, runId), length, anchor);
        const logged = loggedEvent(anchor);
        await this.#insertBlobs(client, runId, logged.blobs);
        await client.query(`DELETE FROM ${this.schema}.blobs WHERE run_id = $1 AND NOT (sha256 = ANY($2))`, [
          runId,
          [...logged.blobs.keys()],
        ]);
        await client.query(`DELETE FROM ${this.schema}.events WHERE run_id = $1`, [runId]);
        await client.query(
          `INSERT INTO ${this.schema}.events (run_id, seq, type, at, data) VALUES ($1, $2, $3, $4, $5)`,
          [runId, anchor.seq, anchor.type, rowTime(anchor), JSON.stringify(logged.event)],
        );
        await client.query("SELECT pg_notify($1, $2)", [this.#channel, runId]);
      }),
    );
    if (this.#held.has(runId)) this.#lengths.set(runId, 1);
    else this.#lengths.delete(runId);
  }

  /** Deletes a corrupt last row, keeping every event before it; returns how many rows were deleted (0 or 1). A corrupt row before the last is left alone and reported. */
  async repair(runId: string): Promise<number> {
    await this.#opened();
    return this.#session.run((client) =>
      transaction(client, async () => {
        const refused = await this.#check(client, runId);
        if (refused !== null) throw refused;
        return this.#repair(client, runId, (await this.#rows(client, [runId])).get(runId) ?? []);
      }),
    );
  }

  /**
   * Calls `onChange` with a run's id each time events of it are committed, by any process (a
   * `LISTEN` on a connection of its own, which `close` gives back).
   */
  async watch(onChange: (runId: string) => void): Promise<{ close(): Promise<void> }> {
    await this.#opened();
    const client = await this.pool.connect();
    client.on("notification", (message) => {
      if (message.channel === this.#channel && message.payload !== undefined) onChange(message.payload);
    });
    const ignore = () => undefined;
    client.on("error", ignore);
    await client.query(`LISTEN "${this.#channel}"`);
    return {
      close: async () => {
        await client.query(`UNLISTEN "${this.#channel}"`).catch(() => undefined);
        client.removeListener("error", ignore);
        client.release();
      },
    };
  }

  /** Commits appends still waiting, releases the runs it holds, gives its session back, and ends its own pool; the store cannot be used afterwards. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#commit();
    const held = [...this.#held];
    this.#held.clear();
    for (const [runId, token] of held) {
      await this.#session.run((client) => this.#locks.release(client, runId, token)).catch(() => undefined);
    }
    await this.#session.close();
    if (this.#ownsPool) await this.pool.end();
  }

  get #channel(): string {
    return `agentloop.${this.schema}`;
  }

  #opened(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`${this.#label}: the store is closed`));
    this.#ready ??= this.#session.run((client) => ensureLayout(client, this.schema, this.#label));
    return this.#ready;
  }

  /** One transaction for every waiting append; each is told once it is committed (or why it was refused). */
  async #commit(): Promise<void> {
    const waiting = this.#waiting;
    this.#waiting = [];
    if (waiting.length === 0) return;
    await commitAppendGroup(waiting, this.#lengths, (lengths) =>
      this.#session.run((client) =>
        this.#fast(waiting) ? this.#insertHeld(client, waiting, lengths) : this.#appendEach(client, waiting, lengths),
      ),
    );
  }

  /** Whether every waiting append is to a run this object holds, whose length it knows, with no blobs: one statement does them all. */
  #fast(waiting: readonly WaitingAppend[]): boolean {
    return waiting.every(
      ({ runId, event }) => this.#held.has(runId) && this.#lengths.has(runId) && loggedEvent(event).blobs.size === 0,
    );
  }

  /**
   * The common case, in one statement and one round trip: every event goes to a run this session
   * holds, so no other writer can append to it; each `seq` is checked here against the known
   * length, and the primary key refuses anything that got in regardless.
   */
  async #insertHeld(
    client: PgPoolClient,
    waiting: readonly WaitingAppend[],
    lengths: Map<string, number>,
  ): Promise<unknown[]> {
    const outcomes: unknown[] = [];
    const rows: { runId: string; event: StoredEvent; index: number }[] = [];
    for (const [index, { runId, event }] of waiting.entries()) {
      const length = lengths.get(runId) ?? this.#lengths.get(runId) ?? 0;
      try {
        checkAppend(runId, length, event);
        rows.push({ runId, event, index });
        lengths.set(runId, length + 1);
        outcomes.push(null);
      } catch (error) {
        outcomes.push(error);
      }
    }
    if (rows.length === 0) return outcomes;
    const inserted = await client.query<{ run_id: string; seq: number }>(
      `WITH inserted AS (
         INSERT INTO ${this.schema}.events (run_id, seq, type, at, data)
         SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[])
         ON CONFLICT DO NOTHING RETURNING run_id, seq),
       told AS (SELECT count(*) AS n FROM (SELECT pg_notify($6, run_id) FROM (SELECT DISTINCT run_id FROM inserted) AS r) AS t)
       SELECT inserted.run_id, inserted.seq FROM inserted, told`,
      [
        rows.map((row) => row.runId),
        rows.map((row) => row.event.seq),
        rows.map((row) => row.event.type),
        rows.map((row) => rowTime(row.event)),
        rows.map((row) => JSON.stringify(loggedEvent(row.event).event)),
        this.#channel,
      ],
    );
    const done = new Set(inserted.rows.map((row) => `${row.seq}\n${row.run_id}`));
    for (const { runId, event, index } of rows) {
      if (done.has(`${event.seq}\n${runId}`)) continue;
      // Another writer took the position: the log is read again before the next append.
      this.#lengths.delete(runId);
      lengths.delete(runId);
      outcomes[index] = checkAppendError(runId, event);
    }
    return outcomes;
  }

  /** Each event in its turn, in one transaction: the lock and the log's end checked on the server. */
  async #appendEach(
    client: PgPoolClient,
    waiting: readonly WaitingAppend[],
    lengths: Map<string, number>,
  ): Promise<unknown[]> {
    return transaction(client, async () => {
      const results: unknown[] = [];
      for (const { runId, event } of waiting) results.push(await this.#appendOne(client, runId, event, lengths));
      if (lengths.size > 0) {
        await client.query("SELECT pg_notify($1, r) FROM unnest($2::text[]) AS r", [
          this.#channel,
          [...lengths.keys()],
        ]);
      }
      return results;
    });
  }

  /** Inserts one event inside the group's transaction; returns `null`, or why it was refused (nothing inserted). */
  async #appendOne(
    client: PgPoolClient,
    runId: string,
    event: StoredEvent,
    lengths: Map<string, number>,
  ): Promise<EventLogError | null> {
    const refused = await this.#check(client, runId);
    if (refused !== null) return refused;
    const end = await this.#end(client, runId);
    const known = lengths.get(runId) ?? this.#lengths.get(runId);
    try {
      // Another session may have written since: then the log is read (and checked) again.
      const length =
        known === end
          ? end
          : (await this.#decode(runId, (await this.#rows(client, [runId])).get(runId) ?? [], client)).length;
      checkAppend(runId, length, event);
      const logged = loggedEvent(event);
      await this.#insertBlobs(client, runId, logged.blobs);
      const inserted = await client.query(
        `INSERT INTO ${this.schema}.events (run_id, seq, type, at, data) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
        [runId, event.seq, event.type, rowTime(event), JSON.stringify(logged.event)],
      );
      // Another session inserted this position between the check and the insert.
      if (inserted.rowCount === 0) return checkAppendError(runId, event);
      lengths.set(runId, length + 1);
      return null;
    } catch (error) {
      if (error instanceof EventLogError) return error;
      throw error;
    }
  }

  /** The position after the run's last row: the number of events its log holds when intact. */
  async #end(db: PgQueryable, runId: string): Promise<number> {
    const last = await db.query<{ seq: number | null }>(
      `SELECT max(seq) AS seq FROM ${this.schema}.events WHERE run_id = $1`,
      [runId],
    );
    return (last.rows[0]?.seq ?? -1) + 1;
  }

  /** Keeps the bytes of an event's image and file parts, once per run. */
  async #insertBlobs(db: PgQueryable, runId: string, blobs: ReadonlyMap<string, Uint8Array>): Promise<void> {
    for (const [sha256, bytes] of blobs) {
      await db.query(
        `INSERT INTO ${this.schema}.blobs (run_id, sha256, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [runId, sha256, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
      );
    }
  }

  /** Null when this session may write the run now (it holds it, or nobody does), else the error naming the holder. */
  async #check(client: PgQueryable, runId: string): Promise<EventLogError | null> {
    const lost = this.#lost.get(runId);
    if (lost !== undefined) {
      return new EventLogError(
        `run '${runId}': this PostgresEventStore lost its lock on the run when its session of the server ended (${lost.why}); another process may write it now: acquire the run again`,
        { runId, position: 0 },
      );
    }
    if (this.#held.has(runId)) return null;
    // Shared: appenders without a lock do not hold each other up; a holder's session lock excludes them all.
    const free = await client.query<{ ok: boolean }>(
      `SELECT pg_try_advisory_xact_lock_shared(${this.#locks.key(1)}) AS ok`,
      [runId],
    );
    return free.rows[0]?.ok === true ? null : this.#locks.refusal(client, runId);
  }

  /** The rows of each run, in order. */
  async #rows(db: PgQueryable, runIds: readonly string[]): Promise<Map<string, EventRow[]>> {
    const result = await db.query<EventRow & { run_id: string }>(
      `SELECT run_id, seq, type, at, data FROM ${this.schema}.events WHERE run_id = ANY($1) ORDER BY run_id, seq`,
      [runIds],
    );
    const byRun = new Map<string, EventRow[]>();
    for (const row of result.rows) {
      const rows = byRun.get(row.run_id) ?? [];
      rows.push(row);
      byRun.set(row.run_id, rows);
    }
    return byRun;
  }

  /** Summaries of `runIds` (those with a `run.started`), read a batch of runs at a time, in the order given. */
  async #summaries(runIds: readonly string[]): Promise<RunSummary[]> {
    const summaries: RunSummary[] = [];
    for (let start = 0; start < runIds.length; start += RUN_BATCH) {
      const batch = runIds.slice(start, start + RUN_BATCH);
      const rows = await this.#rows(this.pool, batch);
      for (const runId of batch) {
        const summary = summarize(runId, await this.#intact(runId, rows.get(runId) ?? []));
        if (summary !== null) summaries.push(summary);
      }
    }
    return summaries;
  }

  async #intact(runId: string, rows: readonly EventRow[]): Promise<readonly StoredEvent[]> {
    try {
      return await this.#decode(runId, rows, this.pool);
    } catch (error) {
      if (error instanceof EventLogError) return error.intact;
      throw error;
    }
  }

  async #repair(client: PgQueryable, runId: string, rows: readonly EventRow[]): Promise<number> {
    try {
      await this.#decode(runId, rows, client);
      return 0;
    } catch (error) {
      const broken = lastBrokenRow(error, rows);
      await client.query(`DELETE FROM ${this.schema}.events WHERE run_id = $1 AND seq = $2`, [runId, broken.seq]);
      this.#lengths.delete(runId);
      return 1;
    }
  }

  /** Rows to events, checked by core's `parseEventLog`, with the blobs they refer to read first. */
  async #decode(runId: string, rows: readonly EventRow[], db: PgQueryable): Promise<StoredEvent[]> {
    const values: Record<string, unknown>[] = [];
    let broken: { position: number; row: EventRow; problem: string } | null = null;
    for (const [position, row] of rows.entries()) {
      const event = eventOf(row);
      if (typeof event === "string") {
        broken = { position, row, problem: event };
        break;
      }
      values.push(event);
    }
    const blobs = await this.#blobs(db, runId, values);
    if (broken === null) return parseEventLog(runId, values, blobs);
    const { position, row, problem } = broken;
    const intact = parseEventLog(runId, values, blobs);
    throw new EventLogError(
      `run '${runId}': event ${position} (the row with seq ${row.seq} in ${this.#label}) has data that ${problem}; the ${intact.length} events before it are intact (PostgresEventStore.repair deletes a broken last row)`,
      { runId, position, intact },
    );
  }

  /** The blobs the events refer to, read in one query: `parseEventLog` reads them synchronously. */
  async #blobs(db: PgQueryable, runId: string, values: readonly Record<string, unknown>[]): Promise<BlobSource> {
    const where = `the blobs table of ${this.#label}`;
    const hashes = new Set(values.flatMap((value) => blobRefsOf(value).map(({ ref }) => ref.sha256)));
    if (hashes.size === 0) return { where, read: () => undefined };
    const found = await db.query<{ sha256: string; data: Buffer }>(
      `SELECT sha256, data FROM ${this.schema}.blobs WHERE run_id = $1 AND sha256 = ANY($2)`,
      [runId, [...hashes]],
    );
    const bytes = new Map(found.rows.map((row) => [row.sha256, new Uint8Array(row.data)]));
    return { where, read: (sha256) => bytes.get(sha256) };
  }
}

/** The refusal of an event whose position another writer took first. */
function checkAppendError(runId: string, event: StoredEvent): EventLogError {
  try {
    checkAppend(runId, event.seq + 1, event);
  } catch (error) {
    if (error instanceof EventLogError) return error;
  }
  return new EventLogError(`run '${runId}': cannot append event seq ${event.seq}, another writer took it`, {
    runId,
    position: event.seq,
  });
}
