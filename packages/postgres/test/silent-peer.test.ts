import { execFileSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { describe, expect, it, onTestFinished } from "vitest";
import { PostgresEventStore } from "../src/index.js";
import { sessionSettingsSql } from "../src/writer-session.js";
import { dropSchema, freshSchema, onServer, POSTGRES_URL } from "./schemas.js";

// A run's lock is a session advisory lock: the server frees it when the session ends. A machine that
// goes silent (power cut, network cut) ends nothing by itself: the server keeps the session, and the
// lock, until TCP keepalives give up, after 2 hours and 11 minutes by the operating system's default
// (the bug daml#11453 and tidx#14 fixed the same way). These tests read the keepalive timers of both
// ends of the store's session from the kernel (`ss`), on the project's own server on 127.0.0.1.

const SERVER_PORT = Number(new URL(POSTGRES_URL).port);

/**
 * The keepalive timer of the established socket from `local` to `remote`, in seconds, once the socket
 * is idle (while a reply waits for its acknowledgement the kernel shows the retransmit timer instead);
 * null if none shows within 5 s.
 */
async function keepaliveSeconds(local: number, remote: number): Promise<number | null> {
  for (let tries = 0; tries < 250; tries++) {
    const out = execFileSync("ss", ["-tnoH", "state", "established", `( sport = :${local} and dport = :${remote} )`], {
      encoding: "utf8",
    });
    // As ss prints it: `119min`, `15sec`, `9.704ms` (9 s and 704 ms), `704ms`.
    const timer = /timer:\(keepalive,(?:(\d+)min)?(?:(\d+)(?:sec|\.))?(?:(\d+)ms)?,\d+\)/.exec(out);
    if (timer !== null) {
      const [, min = "0", sec = "0", ms = "0"] = timer;
      return Number(min) * 60 + Number(sec) + Number(ms) / 1000;
    }
    await sleep(20);
  }
  return null;
}

/** The client port of the session holding `runId`'s lock, as the server sees it. */
async function holderPort(schema: string, runId: string): Promise<number> {
  const rows = await onServer<{ client_port: number }>(
    `SELECT a.client_port FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended($1 || '/' || $2, 0)`,
    [schema, runId],
  );
  expect(rows).toHaveLength(1);
  return Number(rows[0]?.client_port);
}

describe("a run's lock when the machine holding it goes silent", () => {
  it("the server probes the holder's session after 10 s idle, so its runs are free within about 25 s", async () => {
    const schema = freshSchema();
    const store = new PostgresEventStore({ connectionString: POSTGRES_URL }, { schema });
    onTestFinished(async () => {
      await store.close();
      await dropSchema(schema);
    });
    const lock = await store.acquire("run-1");
    const port = await holderPort(schema, "run-1");
    // The server's end of the holder's session, and the store's own end.
    const serverSide = await keepaliveSeconds(SERVER_PORT, port);
    const storeSide = await keepaliveSeconds(port, SERVER_PORT);
    expect(serverSide).not.toBeNull();
    expect(serverSide).toBeLessThanOrEqual(10);
    expect(storeSide).not.toBeNull();
    expect(storeSide).toBeLessThanOrEqual(10);
    await lock.release();
  });

  it("a plain session of the same server keeps the operating system's 2-hour default: what the store's would be", async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    onTestFinished(() => client.end());
    const { rows } = await client.query<{ port: number }>(
      "SELECT client_port AS port FROM pg_stat_activity WHERE pid = pg_backend_pid()",
    );
    const serverSide = await keepaliveSeconds(SERVER_PORT, Number(rows[0]?.port));
    expect(serverSide).not.toBeNull();
    expect(serverSide).toBeGreaterThan(60 * 60);
  });

  it("sets each setting the server takes, one it refuses left at its default (as tcp_user_timeout before PostgreSQL 12)", async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    onTestFinished(() => client.end());
    const settings: [string, string][] = [
      ["tcp_keepalives_idle", "10"],
      ["tcp_not_a_setting", "1"],
      ["tcp_keepalives_count", "3"],
    ];
    await client.query(sessionSettingsSql(settings));
    const { rows } = await client.query<{ idle: string; count: string }>(
      "SELECT current_setting('tcp_keepalives_idle') AS idle, current_setting('tcp_keepalives_count') AS count",
    );
    expect(rows).toEqual([{ idle: "10", count: "3" }]);
    await expect(client.query("SELECT set_config('tcp_not_a_setting', '1', false)")).rejects.toThrow(
      /tcp_not_a_setting/,
    );
  });

  it("gives a caller's pool its connections back with the settings they had", async () => {
    const schema = freshSchema();
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
    const store = new PostgresEventStore({ pool }, { schema });
    onTestFinished(async () => {
      await store.close();
      await pool.end();
      await dropSchema(schema);
    });
    const lock = await store.acquire("run-1");
    expect(await keepaliveSeconds(SERVER_PORT, await holderPort(schema, "run-1"))).toBeLessThanOrEqual(10);
    await lock.release();
    await store.close();
    // Both of the pool's connections, the store's session among them, as the pool hands them out next,
    // against a new session's own value (on TCP, the operating system's default).
    const [fresh] = await onServer<{ idle: string }>("SELECT current_setting('tcp_keepalives_idle') AS idle");
    expect(fresh?.idle).not.toBe("10");
    const clients = [await pool.connect(), await pool.connect()];
    try {
      for (const client of clients) {
        const { rows } = await client.query<{ idle: string }>("SELECT current_setting('tcp_keepalives_idle') AS idle");
        expect(rows).toEqual([fresh]);
      }
    } finally {
      for (const client of clients) client.release();
    }
  });
});
