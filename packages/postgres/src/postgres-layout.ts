import { type PgQueryable, sqlState } from "./pg-types.js";
import { transaction } from "./transaction.js";

/** The version of the table layout, kept in the schema's `agentloop_layout` table; a newer one is refused. */
export const POSTGRES_LAYOUT_VERSION = 1;

const TABLES = ["agentloop_layout", "events", "blobs", "locks", "spending"] as const;
const EVENT_COLUMNS = ["run_id", "seq", "type", "at", "data"];

/** A schema name the store writes into SQL as it is: lower-case letters, digits and `_`, not starting with a digit. */
export function checkSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(
      `'${schema}' cannot be an event store's schema: use 1-63 lower-case letters, digits and '_', not starting with a digit`,
    );
  }
  return schema;
}

const SPENDING = (s: string) => `CREATE TABLE ${s}.spending (
      owner text NOT NULL,
      "window" text NOT NULL,
      usd double precision NOT NULL,
      PRIMARY KEY (owner, "window")
    );`;

// `data` is text, not jsonb: an event is kept as written, its keys in their order, and a row that
// something else wrote wrong is read back as it is, to be reported with its position.
function layout(s: string): string {
  return `
    CREATE SCHEMA IF NOT EXISTS ${s};
    CREATE TABLE ${s}.agentloop_layout (version integer NOT NULL);
    INSERT INTO ${s}.agentloop_layout (version) VALUES (${POSTGRES_LAYOUT_VERSION});
    CREATE TABLE ${s}.events (
      run_id text NOT NULL,
      seq integer NOT NULL,
      type text NOT NULL,
      at text NOT NULL,
      data text NOT NULL,
      PRIMARY KEY (run_id, seq)
    );
    CREATE INDEX events_by_start ON ${s}.events (at DESC, run_id DESC) WHERE seq = 0;
    CREATE TABLE ${s}.blobs (
      run_id text NOT NULL,
      sha256 text NOT NULL,
      data bytea NOT NULL,
      PRIMARY KEY (run_id, sha256)
    );
    CREATE TABLE ${s}.locks (
      run_id text PRIMARY KEY,
      pid integer NOT NULL,
      host text NOT NULL,
      since text NOT NULL,
      token text NOT NULL,
      boot text,
      pid_namespace text,
      backend_pid integer NOT NULL
    );
    ${SPENDING(s)}`;
}

/**
 * Checks that `schema` holds an agentloop event log, creating the tables in a schema that has none
 * of them (one process at a time, under a transaction's advisory lock). A schema whose tables are
 * another program's, or of a newer layout, is refused with one line naming it, untouched.
 */
export async function ensureLayout(db: PgQueryable, schema: string, label: string): Promise<void> {
  try {
    await transaction(db, () => checkOrCreate(db, schema, label));
  } catch (error) {
    // Two stores creating one schema at once: the loser of CREATE SCHEMA meets the winner's.
    if (sqlState(error) === "23505" || sqlState(error) === "42P06") return ensureLayout(db, schema, label);
    throw error;
  }
}

/** The check (and the creation) itself, inside the transaction. */
async function checkOrCreate(db: PgQueryable, schema: string, label: string): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`agentloop layout ${schema}`]);
  const found = await db.query<{ table_name: string; column_name: string }>(
    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = ANY($2)",
    [schema, TABLES],
  );
  const columns = (table: string) => found.rows.filter((row) => row.table_name === table).map((row) => row.column_name);
  if (found.rows.length === 0) {
    await db.query(layout(schema));
  } else {
    const events = columns("events");
    if (events.length > 0 && EVENT_COLUMNS.some((name) => !events.includes(name))) {
      throw notOurs(label, `its events table has the columns ${events.join(", ")}, not ${EVENT_COLUMNS.join(", ")}`);
    }
    if (columns("agentloop_layout").length === 0) {
      const tables = [...new Set(found.rows.map((row) => row.table_name))].join(", ");
      throw notOurs(label, `it has tables named ${tables} but no agentloop_layout table`);
    }
    const version = (
      await db.query<{ version: number }>(`SELECT max(version) AS version FROM ${schema}.agentloop_layout`)
    ).rows[0]?.version;
    if (version === undefined || version === null) throw notOurs(label, "its agentloop_layout table is empty");
    if (version > POSTGRES_LAYOUT_VERSION) {
      throw new Error(
        `${label} holds event store layout ${version}; this @agentloop/postgres reads up to ${POSTGRES_LAYOUT_VERSION}`,
      );
    }
    // A schema made before owners' spending was kept gains its table.
    if (columns("spending").length === 0) await db.query(SPENDING(schema));
  }
}

function notOurs(label: string, reason: string): Error {
  return new Error(`${label} is not an agentloop event log: ${reason}`);
}
