import { JsonlEventStore } from "../src/stores/jsonl-store.js";
import { describeCrashTests } from "./crash-suite.js";

// The crash tests (crash-suite.ts) on the JSONL store: the child runs the BUILT core, so build first.
describeCrashTests("JsonlEventStore", { kind: "jsonl", openStore: (path) => new JsonlEventStore(path) });
