import { describeDurableStore, describePruneContract, describeSpendLedger } from "@agentloop/store-testkit";
import { PostgresEventStore } from "../src/index.js";
import { postgresHarness } from "./postgres-harness.js";
import { dropSchema, freshSchema, POSTGRES_URL } from "./schemas.js";

describeDurableStore("PostgresEventStore", async () => postgresHarness());
describePruneContract("PostgresEventStore", async () => postgresHarness());

describeSpendLedger("PostgresEventStore", () => {
  const schema = freshSchema();
  const stores: PostgresEventStore[] = [];
  return {
    open() {
      const store = new PostgresEventStore({ connectionString: POSTGRES_URL }, { schema });
      stores.push(store);
      return store.spending;
    },
    async close() {
      for (const store of stores) await store.close();
      await dropSchema(schema);
    },
  };
});
