import type { EventStore } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";

/** The store a bench process writes: a JSONL directory, a SQLite file, or a Postgres schema (`postgres://…?schema=`). */
export async function openBenchStore(
  kind: string,
  location: string,
): Promise<EventStore & { close?(): void | Promise<void> }> {
  if (kind === "jsonl") return new JsonlEventStore(location);
  if (kind === "sqlite") {
    const { SqliteEventStore } = await import("@agentloop/sqlite");
    return new SqliteEventStore(location);
  }
  const { PostgresEventStore } = await import("@agentloop/postgres");
  const url = new URL(location);
  const schema = url.searchParams.get("schema") ?? "agentloop";
  url.searchParams.delete("schema");
  return new PostgresEventStore({ connectionString: url.href }, { schema });
}
