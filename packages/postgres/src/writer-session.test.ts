import { describe, expect, it } from "vitest";
import type { PgPool, PgPoolClient, PgResult } from "./pg-types.js";
import { WriterSession } from "./writer-session.js";

/** A server error, as pg gives it: a message and a SQLSTATE. */
function serverError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** A pool of one fake session whose settings statement fails with `failure`; every other query answers. */
function poolFailingSettings(
  failure: Error,
  resetFails = false,
): {
  pool: PgPool;
  released: (Error | boolean | undefined)[];
  queries: string[];
} {
  const released: (Error | boolean | undefined)[] = [];
  const queries: string[] = [];
  const client: PgPoolClient = {
    query: async <Row>(text: string): Promise<PgResult<Row>> => {
      queries.push(text);
      if (text.startsWith("DO ") && queries.length === 1) throw failure;
      if (resetFails && text.includes("RESET")) throw serverError("25P02", "current transaction is aborted");
      return { rows: [{ ok: true } as Row], rowCount: 1 };
    },
    release: (error) => void released.push(error),
    on: () => client,
    removeListener: () => client,
  };
  const pool = { connect: async () => client, query: client.query, end: async () => {} } as unknown as PgPool;
  return { pool, released, queries };
}

describe("the writer session's keepalive settings", () => {
  it("a server that refuses the statement keeps its session: the work runs, on the same connection", async () => {
    const { pool, released, queries } = poolFailingSettings(serverError("0A000", "DO is not supported"));
    const lost: string[] = [];
    const session = new WriterSession(pool, (why) => lost.push(why));
    expect(await session.run((client) => client.query("SELECT 1"))).toMatchObject({ rowCount: 1 });
    expect(queries).toEqual([expect.stringMatching(/^DO /), "SELECT 1"]);
    expect(lost).toEqual([]);
    expect(released).toEqual([]);
  });

  it("a connection lost while setting them is given up and told: the work is refused, the next opens a new session", async () => {
    const { pool, released, queries } = poolFailingSettings(new Error("Connection terminated unexpectedly"));
    const lost: string[] = [];
    const session = new WriterSession(pool, (why) => lost.push(why));
    await expect(session.run((client) => client.query("SELECT 1"))).rejects.toThrow("Connection terminated");
    expect(lost).toEqual(["Connection terminated unexpectedly"]);
    expect(released).toHaveLength(1);
    expect(released[0]).toBeInstanceOf(Error);
    expect(await session.run((client) => client.query("SELECT 2"))).toMatchObject({ rowCount: 1 });
    expect(queries).toEqual([expect.stringMatching(/^DO /), expect.stringMatching(/^DO /), "SELECT 2"]);
  });

  it("puts the settings back before the connection returns to the pool, and ends one that cannot take it", async () => {
    const { pool, released, queries } = poolFailingSettings(serverError("0A000", "no"));
    const session = new WriterSession(pool, () => {});
    await session.run((client) => client.query("SELECT 1"));
    await session.close();
    expect(queries.at(-1)).toMatch(/^DO .*RESET tcp_keepalives_idle/);
    expect(released).toEqual([false]);
    const failing = poolFailingSettings(serverError("0A000", "no"), true);
    const other = new WriterSession(failing.pool, () => {});
    await other.run((client) => client.query("SELECT 1"));
    await other.close();
    expect(failing.released).toEqual([true]);
  });
});
