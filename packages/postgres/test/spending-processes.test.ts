import { execFile } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, describe, expect, it } from "vitest";
import { locationOf, madeSchemas, POSTGRES_URL, storeAt } from "./schemas.js";

// Holds for one owner from four processes at once on one schema: the children load the BUILT dist
// of core and of this package, so build both first.

const run = promisify(execFile);
const MODULE = pathToFileURL(join(import.meta.dirname, "..", "dist", "index.js")).href;
const schemas = madeSchemas();
afterAll(() => schemas.drop());

/** A process that makes 20 holds of $0.10 for one owner under a $1 daily ceiling, and prints how many were held. */
const CHILD = `
const [url, schema, module] = process.argv.slice(1);
const { PostgresEventStore } = await import(module);
const store = new PostgresEventStore({ connectionString: url }, { schema });
let held = 0;
for (let i = 0; i < 20; i++) {
  const hold = await store.spending.reserve("acme", 0.1, { costPerDay: 1 }, new Date("2026-12-07T10:00:00Z"));
  if (hold.held) held++;
}
await store.close();
process.stdout.write(String(held));
`;

describe("holds from four processes at once on one Postgres schema", () => {
  it("never pass the ceiling together, and the ledger holds exactly the ceiling", async () => {
    const schema = schemas.make();
    const children = [0, 1, 2, 3].map(() =>
      run(process.execPath, ["--input-type=module", "-e", CHILD, POSTGRES_URL, schema, MODULE], {
        timeout: hangGuard(60_000),
      }),
    );
    const held = (await Promise.all(children)).map(({ stdout }) => Number(stdout));
    expect(held.reduce((sum, each) => sum + each, 0)).toBe(10);
    const store = storeAt(locationOf(schema));
    try {
      expect((await store.spending.spent("acme", new Date("2026-12-07T12:00:00Z"))).day).toBeCloseTo(1, 9);
    } finally {
      await store.close();
    }
  });
});
