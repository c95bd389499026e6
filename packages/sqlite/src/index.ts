export {
  SQLITE_APPLICATION_ID,
  SQLITE_SCHEMA_VERSION,
  SqliteEventStore,
  type SqliteEventStoreOptions,
} from "./sqlite-event-store.js";
