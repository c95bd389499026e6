import type { PgPool, PgPoolClient, PgQueryable } from "./pg-types.js";

/** Runs `work` in one transaction of `db`'s session: committed once it returns, rolled back when it throws (and the error thrown on). */
export async function transaction<T>(db: PgQueryable, work: () => Promise<T>): Promise<T> {
  await db.query("BEGIN");
  try {
    const result = await work();
    await db.query("COMMIT");
    return result;
  } catch (error) {
    await db.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/** Runs `work` in one transaction on a client of `pool` of its own, given back to the pool afterwards. */
export async function pooledTransaction<T>(pool: PgPool, work: (client: PgPoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await transaction(client, () => work(client));
  } finally {
    client.release();
  }
}
