export type { PgNotification, PgPool, PgPoolClient, PgQueryable, PgResult } from "./pg-types.js";
export {
  type PostgresConnection,
  PostgresEventStore,
  type PostgresEventStoreSettings,
  type RunPage,
} from "./postgres-event-store.js";
export { POSTGRES_LAYOUT_VERSION } from "./postgres-layout.js";
export { PostgresMemoryStore, type PostgresMemoryStoreSettings } from "./postgres-memory-store.js";
export { PostgresSpendLedger } from "./postgres-spending.js";
