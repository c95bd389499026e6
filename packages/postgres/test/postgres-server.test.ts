import { retain, runAgent, scriptedModel } from "@agentloop/core";
import { makeWeatherRegistry, weatherScript } from "@agentloop/core/testing";
import { sampleLog } from "@agentloop/store-testkit";
import pg from "pg";
import { describe, expect, it, onTestFinished } from "vitest";
import { type PgPool, POSTGRES_LAYOUT_VERSION, PostgresEventStore } from "../src/index.js";
import { dropSchema, freshSchema, onServer, POSTGRES_URL } from "./schemas.js";

/** A store on a new schema, closed and dropped when the test ends. */
function open(schema = freshSchema()): PostgresEventStore {
  const store = new PostgresEventStore({ connectionString: POSTGRES_URL }, { schema });
  onTestFinished(async () => {
    await store.close();
    await dropSchema(schema);
  });
  return store;
}

describe("PostgresEventStore on a server", () => {
  it("writes one row per event: run_id, seq, type, at, and the whole event as written in data", async () => {
    const store = open();
    const events = sampleLog();
    for (const event of events) await store.append("run-1", event);
    const rows = await onServer<{ run_id: string; seq: number; type: string; at: string; data: string }>(
      `SELECT run_id, seq, type, at, data FROM ${store.schema}.events ORDER BY seq`,
    );
    expect(rows.map((row) => [row.run_id, row.seq, row.type, row.at])).toEqual(
      events.map((event) => ["run-1", event.seq, event.type, event.at]),
    );
    expect(rows.map((row) => row.data)).toEqual(events.map((event) => JSON.stringify(event)));
    expect(await onServer(`SELECT version FROM ${store.schema}.agentloop_layout`)).toEqual([
      { version: POSTGRES_LAYOUT_VERSION },
    ]);
  });

  it("a writer whose session the server ended has lost its runs: its appends are refused, another process takes the run", async () => {
    const store = open();
    const other = new PostgresEventStore({ connectionString: POSTGRES_URL }, { schema: store.schema });
    onTestFinished(() => other.close());
    const [first, second] = sampleLog();
    if (first === undefined || second === undefined) throw new Error("sample too short");
    const lock = await store.acquire("run-1");
    await store.append("run-1", first);
    const [holder] = await onServer<{ backend_pid: number }>(`SELECT backend_pid FROM ${store.schema}.locks`);
    await onServer("SELECT pg_terminate_backend($1)", [holder?.backend_pid]);
    // The ended session freed the lock on the server: another store takes the run, and writes it.
    const taken = await takeOver(other, "run-1");
    await other.append("run-1", second);
    const refused = await store.append("run-1", { ...second, seq: 2 }).catch((error: Error) => error);
    expect(refused).toMatchObject({ name: "EventLogError", runId: "run-1" });
    expect((refused as Error).message).toContain(
      "run 'run-1': this PostgresEventStore lost its lock on the run when its session of the server ended",
    );
    expect(await store.read("run-1")).toEqual([first, second]);
    await taken.release();
    await lock.release();
    // Released, the lost lock is forgotten: the store may take the run again.
    const again = await store.acquire("run-1");
    await again.release();
  });

  it("refuses a schema whose events table is another program's, and one of a newer layout, leaving both as they were", async () => {
    const foreign = freshSchema();
    onTestFinished(() => dropSchema(foreign));
    await onServer(`CREATE SCHEMA ${foreign}; CREATE TABLE ${foreign}.events (id serial, payload text)`);
    const store = new PostgresEventStore({ connectionString: POSTGRES_URL }, { schema: foreign });
    onTestFinished(() => store.close());
    await expect(store.read("run-1")).rejects.toThrow(`schema '${foreign}' of postgres://postgres@127.0.0.1:`);
    await expect(store.list()).rejects.toThrow(
      "is not an agentloop event log: its events table has the columns id, payload, not run_id, seq, type, at, data",
    );
    const newer = open();
    await newer.list();
    await onServer(`UPDATE ${newer.schema}.agentloop_layout SET version = ${POSTGRES_LAYOUT_VERSION + 1}`);
    const later = new PostgresEventStore({ connectionString: POSTGRES_URL }, { schema: newer.schema });
    onTestFinished(() => later.close());
    await expect(later.list()).rejects.toThrow(
      `holds event store layout ${POSTGRES_LAYOUT_VERSION + 1}; this @agentloop/postgres reads up to ${POSTGRES_LAYOUT_VERSION}`,
    );
    expect(await onServer(`SELECT count(*)::int AS n FROM ${foreign}.events`)).toEqual([{ n: 0 }]);
  });

  it("refuses a schema name it would have to quote", () => {
    expect(() => new PostgresEventStore({ connectionString: POSTGRES_URL }, { schema: 'runs"; DROP' })).toThrow(
      `'runs"; DROP' cannot be an event store's schema`,
    );
  });

  it("pages runs newest first: every run once, in order, whatever the page size, with the total", async () => {
    const store = open();
    const ids = Array.from({ length: 23 }, (_, index) => `run-${String(index).padStart(2, "0")}`);
    for (const [index, runId] of ids.entries()) {
      // Two runs start at each second: the run id orders those.
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(index / 2))).toISOString();
      const [started] = sampleLog(`task ${index}`);
      if (started === undefined) throw new Error("sample too short");
      await store.append(runId, { ...started, at });
    }
    const expected = [...ids].reverse();
    for (const limit of [1, 5, 23, 50]) {
      const seen: string[] = [];
      let after: string | null = null;
      let pages = 0;
      do {
        const page = await store.listPage({ limit, after });
        expect(page.total).toBe(23);
        expect(page.runs.length).toBeLessThanOrEqual(limit);
        seen.push(...page.runs.map((run) => run.runId));
        after = page.next;
        pages++;
      } while (after !== null);
      expect(seen, `limit ${limit}`).toEqual(expected);
      expect(pages).toBe(Math.ceil(23 / limit));
    }
    const [first] = (await store.listPage({ limit: 1 })).runs;
    expect(first).toEqual((await store.list()).find((run) => run.runId === "run-22"));
  });

  it("keeps a pruned run where its start puts it in the pages, not where its anchor was written", async () => {
    const store = open();
    // Started c, then b, then a: newest first is a, b, c. retain prunes them in id order, a first,
    // so their anchors are written in the other order.
    for (const runId of ["c", "b", "a"]) {
      await runAgent("How hot is Pune?", scriptedModel(weatherScript()), makeWeatherRegistry().registry, {
        store,
        runId,
      });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const before = (await store.listPage({ limit: 10 })).runs.map((run) => run.runId);
    expect(before).toEqual(["a", "b", "c"]);
    expect(await retain(store, { olderThan: new Date(Date.now() + 60_000) })).toEqual({ pruned: ["a", "b", "c"] });
    const page = await store.listPage({ limit: 10 });
    expect(page.runs.map((run) => [run.runId, run.events])).toEqual([
      ["a", 1],
      ["b", 1],
      ["c", 1],
    ]);
    // And a page boundary after a pruned run still lands between the same two runs.
    const first = await store.listPage({ limit: 1 });
    expect((await store.listPage({ limit: 2, after: first.next })).runs.map((run) => run.runId)).toEqual(["b", "c"]);
  });

  it("tells a watcher of each run another process committed events of", async () => {
    const store = open();
    const writer = new PostgresEventStore({ connectionString: POSTGRES_URL }, { schema: store.schema });
    onTestFinished(() => writer.close());
    const heard: string[] = [];
    const watching = await store.watch((runId) => heard.push(runId));
    onTestFinished(() => watching.close());
    const events = sampleLog();
    // A run the writer holds (its appends after the first go in one statement each), and one it does not.
    const lock = await writer.acquire("watched");
    for (const event of events.slice(0, 3)) {
      heard.length = 0;
      await writer.append("watched", event);
      while (!heard.includes("watched")) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await lock.release();
    await writer.append("other", events[0] as (typeof events)[number]);
    while (!heard.includes("other")) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await store.read("watched")).toEqual(events.slice(0, 3));
  });

  it("works on a pool of yours, which it leaves open", async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 3 });
    onTestFinished(() => pool.end());
    const schema = freshSchema();
    onTestFinished(() => dropSchema(schema));
    const mine: PgPool = pool;
    const store = new PostgresEventStore({ pool: mine }, { schema });
    const events = sampleLog();
    for (const event of events) await store.append("run-1", event);
    await store.close();
    expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    const again = new PostgresEventStore({ pool }, { schema });
    expect(await again.read("run-1")).toEqual(events);
    await again.close();
  });
});

async function takeOver(store: PostgresEventStore, runId: string) {
  for (let tries = 0; ; tries++) {
    try {
      return await store.acquire(runId);
    } catch (error) {
      if (tries > 500) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
