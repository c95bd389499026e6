import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { describeCrashTests } from "../src/processes/index.js";

// The crash tests (crash-suite.ts) on the JSONL store: the child runs the BUILT core, so build first.
describeCrashTests("JsonlEventStore", { kind: "jsonl", openStore: (path) => new JsonlEventStore(path) });
