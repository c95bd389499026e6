import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EventStore, MemoryEventStore } from "@agentloop/core";
import { DURABILITIES, JsonlEventStore } from "@agentloop/core/jsonl-store";

/** A store to measure, made fresh for each sample; `close` releases it. */
export interface StoreKind {
  readonly name: string;
  /** Why the store cannot be measured here, or `null` when it can. */
  readonly unavailable: string | null;
  open(): { readonly store: EventStore; close(): void | Promise<void> };
}

type SqliteStore = EventStore & { close(): void; readonly driver?: string };
type SqliteModule = { SqliteEventStore: new (filename: string) => SqliteStore };

/**
 * The stores: memory, JSONL in a temp directory (once per durability), and SQLite in a temp file. `@agentloop/sqlite` is
 * imported at run time, so a missing or unbuilt package (or a better-sqlite3 that does not load)
 * leaves its row saying why instead of failing the bench; its row names the driver it ran on.
 */
export async function storeKinds(directory: string): Promise<StoreKind[]> {
  let sequence = 0;
  const fresh = (name: string) => join(directory, `${name}-${sequence++}`);
  const kinds: StoreKind[] = [
    { name: "MemoryEventStore", unavailable: null, open: () => ({ store: new MemoryEventStore(), close() {} }) },
    ...DURABILITIES.map((durability) => ({
      name: `JsonlEventStore (temp dir, durability ${durability})`,
      unavailable: null,
      open: () => {
        const path = fresh("jsonl");
        const store = new JsonlEventStore(path, { durability });
        return { store, close: () => rmSync(path, { recursive: true, force: true }) };
      },
    })),
  ];
  const sqlite = await loadSqlite();
  kinds.push({
    name: `SqliteEventStore (temp file${typeof sqlite === "string" ? "" : `, ${sqlite.driver}`})`,
    unavailable: typeof sqlite === "string" ? sqlite : null,
    open: () => {
      if (typeof sqlite === "string") throw new Error(sqlite);
      const path = `${fresh("sqlite")}.db`;
      const store = new sqlite.SqliteEventStore(path);
      return {
        store,
        close: () => {
          store.close();
          for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
        },
      };
    },
  });
  return kinds;
}

async function loadSqlite(): Promise<(SqliteModule & { readonly driver: string }) | string> {
  const specifier = "@agentloop/sqlite"; // a variable: the bench builds and runs without the package
  try {
    const module = (await import(specifier)) as Partial<SqliteModule>;
    if (typeof module.SqliteEventStore !== "function") return "@agentloop/sqlite has no SqliteEventStore export";
    const probe = new module.SqliteEventStore(":memory:");
    probe.close();
    return { SqliteEventStore: module.SqliteEventStore, driver: probe.driver ?? "better-sqlite3" };
  } catch (error) {
    return `@agentloop/sqlite is not available: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
  }
}

type PostgresModule = {
  PostgresEventStore: new (
    connection: { connectionString: string },
    settings: { schema: string },
  ) => EventStore & { close(): Promise<void> };
};

/** Postgres at `url` (a server the caller started), a new schema for each sample. */
export async function postgresKind(url: string): Promise<StoreKind> {
  const specifier = "@agentloop/postgres";
  const { PostgresEventStore } = (await import(specifier)) as PostgresModule;
  let sequence = 0;
  return {
    name: "PostgresEventStore (127.0.0.1)",
    unavailable: null,
    open: () => {
      const store = new PostgresEventStore({ connectionString: url }, { schema: `bench_${process.pid}_${sequence++}` });
      return { store, close: () => store.close() };
    },
  };
}

/** A temp directory for the stores' files, and a function that removes it. */
export function tempDirectory(): { readonly path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), "agentloop-bench-"));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
