import { InMemoryMemoryStore } from "@agentloop/core";
import { describeMemoryStore } from "../src/index.js";

// The reference store keeps the contract it is the reference of: the suite compares it with a fresh one of itself.
describeMemoryStore("InMemoryMemoryStore", ({ embed }) => ({
  store: new InMemoryMemoryStore(embed === undefined ? {} : { embed }),
}));
