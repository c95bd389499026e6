export { SQLITE_SCHEMA_VERSION, SqliteEventStore, type SqliteEventStoreOptions } from "./sqlite-event-store.js";
