import type { DurableHarness } from "@agentloop/store-testkit";
import { PostgresEventStore } from "../src/index.js";
import { dropSchema, freshSchema, onServer, POSTGRES_URL } from "./schemas.js";

/** A PostgresEventStore on a schema of its own, with hooks that damage its rows through a connection of their own. */
export function postgresHarness(): DurableHarness & { readonly schema: string; readonly store: PostgresEventStore } {
  const schema = freshSchema();
  const opened: PostgresEventStore[] = [];
  const open = () => {
    const store = new PostgresEventStore({ connectionString: POSTGRES_URL }, { schema });
    opened.push(store);
    return store;
  };
  const lastRow = `seq = (SELECT max(seq) FROM ${schema}.events WHERE run_id = $1)`;
  const onLast = async (runId: string, set: string) => {
    await onServer(`UPDATE ${schema}.events SET ${set} WHERE run_id = $1 AND ${lastRow}`, [runId]);
  };
  const blob = `${schema}.blobs WHERE run_id = $1 AND sha256 = $2`;
  return {
    schema,
    store: open(),
    reopen: open,
    corruptLast: (runId) => onLast(runId, `data = '{"corrupt":true}'`),
    tearLast: (runId) => onLast(runId, "data = substr(data, 1, length(data) / 2)"),
    tornEntry: (position) => `event ${position}`,
    blobs: {
      held: async (runId) =>
        (await onServer<{ sha256: string }>(`SELECT sha256 FROM ${schema}.blobs WHERE run_id = $1`, [runId])).map(
          (row) => row.sha256,
        ),
      remove: async (runId, sha256) => {
        await onServer(`DELETE FROM ${blob}`, [runId, sha256]);
      },
      alter: async (runId, sha256) => {
        // The first byte flipped, the length kept.
        await onServer(
          `UPDATE ${blob.replace(" WHERE", " SET data = set_byte(data, 0, get_byte(data, 0) # 1) WHERE")}`,
          [runId, sha256],
        );
      },
      editEvent: async (runId, position, edit) => {
        const [row] = await onServer<{ data: string }>(
          `SELECT data FROM ${schema}.events WHERE run_id = $1 AND seq = $2`,
          [runId, position],
        );
        await onServer(`UPDATE ${schema}.events SET data = $3 WHERE run_id = $1 AND seq = $2`, [
          runId,
          position,
          edit(row?.data ?? ""),
        ]);
      },
    },
    async close() {
      for (const store of opened) await store.close();
      await dropSchema(schema);
    },
  };
}
