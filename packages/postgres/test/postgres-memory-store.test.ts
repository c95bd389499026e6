import { describeMemoryStore, MEMORY_FACTS } from "@agentloop/store-testkit";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresEventStore, PostgresMemoryStore } from "../src/index.js";
import { madeSchemas, POSTGRES_URL } from "./schemas.js";

const schemas = madeSchemas();
afterAll(() => schemas.drop());

describeMemoryStore(
  "PostgresMemoryStore",
  ({ embed }) => {
    const schema = schemas.make();
    const opened: PostgresMemoryStore[] = [];
    const open = () => {
      const store = new PostgresMemoryStore(
        { connectionString: POSTGRES_URL },
        embed === undefined ? { schema } : { schema, embed },
      );
      opened.push(store);
      return store;
    };
    return {
      store: open(),
      reopen: open,
      close: async () => {
        for (const store of opened) await store.close();
      },
    };
  },
  { durable: true },
);

describe("PostgresMemoryStore beside the event log", () => {
  it("shares the event store's schema and pool: each keeps its own tables", async () => {
    const schema = schemas.make();
    const events = new PostgresEventStore({ connectionString: POSTGRES_URL }, { schema });
    const memory = new PostgresMemoryStore({ pool: events.pool }, { schema });
    try {
      await Promise.all(MEMORY_FACTS.map(([key, value]) => memory.put({ resource: "alice" }, key, value)));
      expect(await events.list()).toEqual([]);
      expect((await memory.search({ resource: "alice" }, "green", 5)).map((hit) => hit.key)).toEqual([
        "colour",
        "drink",
      ]);
    } finally {
      await memory.close();
      await events.close();
    }
  });

  it("keeps a scope's counts exact while four store objects write to it at once", async () => {
    const schema = schemas.make();
    const stores = [0, 1, 2, 3].map(() => new PostgresMemoryStore({ connectionString: POSTGRES_URL }, { schema }));
    const reference = new PostgresMemoryStore({ connectionString: POSTGRES_URL }, { schema: schemas.make() });
    try {
      await Promise.all(
        MEMORY_FACTS.flatMap(([key, value], index) => [
          (stores[index % 4] as PostgresMemoryStore).put({ resource: "alice" }, key, value),
          (stores[(index + 1) % 4] as PostgresMemoryStore).put({ resource: "alice" }, key, `${value} again`),
        ]),
      );
      for (const [key] of MEMORY_FACTS) {
        const value = (await stores[0]?.get({ resource: "alice" }, key)) as string;
        await reference.put({ resource: "alice" }, key, value);
      }
      for (const query of ["green", "ferry timetable", "alice again"]) {
        expect(await stores[2]?.search({ resource: "alice" }, query, 10)).toEqual(
          await reference.search({ resource: "alice" }, query, 10),
        );
      }
    } finally {
      for (const store of [...stores, reference]) await store.close();
    }
  });
});
