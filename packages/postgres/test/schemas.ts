import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { PostgresEventStore } from "../src/index.js";

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
export async function dropSchema(schema: string): Promise<void> {
  await onServer(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}

/** Where a store on `schema` of the project's server is, as the children and `agentloop --store` take it. */
export function locationOf(schema: string): string {
  const url = new URL(POSTGRES_URL);
  url.searchParams.set("schema", schema);
  return url.href;
}

/** The schema a location names. */
export function schemaOf(location: string): string {
  const schema = new URL(location).searchParams.get("schema");
  if (schema === null) throw new Error(`${location} names no schema`);
  return schema;
}

/** A store over a location, as the children open it. */
export function storeAt(location: string): PostgresEventStore {
  return new PostgresEventStore({ connectionString: POSTGRES_URL }, { schema: schemaOf(location) });
}

/** Schemas a suite made, dropped once it is done (a server given by AGENTLOOP_TEST_POSTGRES is left as it was). */
export function madeSchemas(): { readonly make: () => string; drop(): Promise<void> } {
  const made: string[] = [];
  return {
    make: () => {
      const schema = freshSchema();
      made.push(schema);
      return schema;
    },
    drop: async () => {
      for (const schema of made.splice(0)) await dropSchema(schema);
    },
  };
}
