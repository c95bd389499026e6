import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { final, resumeAgent, runAgent, scriptedModel, ToolRegistry } from "@agentloop/core";
import { SqliteEventStore } from "@agentloop/sqlite";

const store = new SqliteEventStore(join(mkdtempSync(join(tmpdir(), "agentloop-")), "agent.db"));
const registry = new ToolRegistry();
const model = scriptedModel([final("Hello!")]);

const result = await runAgent("Say hello", model, registry, { store, runId: "hello-1" });
console.log(result.status, await store.list()); // done [{ runId: "hello-1", events: 3, outcome: { ... } }]

// In a new process after a crash: the run goes on from its log, asking nothing twice.
await store.repair("hello-1"); // drops a corrupt last row, if any
const resumed = await resumeAgent("hello-1", model, registry, { store });
console.log(resumed.status); // done: a finished run comes back as it was
store.close();
