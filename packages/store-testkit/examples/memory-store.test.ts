import { MemoryEventStore } from "@agentloop/core";
import { describeEventStore } from "@agentloop/store-testkit";

// The whole contract, for any store, from one call in the store's own tests: append, read, list,
// acquire, whole runs through runAgent and resumeAgent, and text that trips up naive storage.
describeEventStore("MemoryEventStore", async () => ({ store: new MemoryEventStore() }));
