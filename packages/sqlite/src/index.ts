export {
  SQLITE_APPLICATION_ID,
  SQLITE_SCHEMA_VERSION,
  SqliteEventStore,
  type SqliteEventStoreOptions,
} from "./sqlite-event-store.js";
export { SqliteMemoryStore, type SqliteMemoryStoreOptions } from "./sqlite-memory-store.js";
