import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

/** The project's server. */
export const POSTGRES_URL = inject("postgresUrl");

/** A schema name no other test uses. */
export function freshSchema(prefix = "t"): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

/** Runs `sql` on a connection of its own. */
export async function onServer<Row = Record<string, unknown>>(sql: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as Row[];
  } finally {
    await client.end();
  }
}

/** Drops a schema and everything in it. */
export function dropSchema(schema: string): Promise<unknown> {
  return onServer(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}
