import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeMemoryStore, MEMORY_FACTS } from "@agentloop/store-testkit";
import { describe, expect, it, onTestFinished } from "vitest";
import { SqliteEventStore, SqliteMemoryStore } from "../src/index.js";

describeMemoryStore(
  "SqliteMemoryStore",
  ({ embed }) => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-memory-"));
    const filename = join(directory, "memory.db");
    const opened: SqliteMemoryStore[] = [];
    const open = () => {
      const store = new SqliteMemoryStore(filename, embed === undefined ? {} : { embed });
      opened.push(store);
      return store;
    };
    return {
      store: open(),
      reopen: open,
      close: () => {
        for (const store of opened) store.close();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  },
  { durable: true },
);

describe("SqliteMemoryStore beside the event log", () => {
  it("shares the event store's file: each keeps its own tables, and both open it again", async () => {
    const directory = mkdtempSync(join(tmpdir(), "agentloop-memory-"));
    onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
    const filename = join(directory, "agent.db");
    const events = new SqliteEventStore(filename);
    const memory = new SqliteMemoryStore(filename);
    for (const [key, value] of MEMORY_FACTS) await memory.put({ resource: "alice" }, key, value);
    memory.close();
    events.close();
    const again = new SqliteEventStore(filename);
    const memoryAgain = new SqliteMemoryStore(filename);
    onTestFinished(() => {
      again.close();
      memoryAgain.close();
    });
    expect(await again.list()).toEqual([]);
    expect((await memoryAgain.search({ resource: "alice" }, "green", 5)).map((hit) => hit.key)).toEqual([
      "colour",
      "drink",
    ]);
  });
});
