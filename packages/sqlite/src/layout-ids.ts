// Apart from the layout code, so the published types never reach better-sqlite3's (a devDependency).

/** The version of the table layout, kept in SQLite's `user_version`; a newer file is refused. */
export const SQLITE_SCHEMA_VERSION = 4;

/** The `application_id` of a file this package wrote (since layout 2): "AGLP". */
export const SQLITE_APPLICATION_ID = 0x41474c50;
