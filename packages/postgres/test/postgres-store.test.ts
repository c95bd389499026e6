import { describeDurableStore } from "@agentloop/store-testkit";
import { postgresHarness } from "./postgres-harness.js";

describeDurableStore("PostgresEventStore", async () => postgresHarness());
