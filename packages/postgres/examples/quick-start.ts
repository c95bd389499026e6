import { final, resumeAgent, runAgent, scriptedModel, ToolRegistry } from "@agentloop/core";
import { PostgresEventStore } from "@agentloop/postgres";

const connectionString = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const store = new PostgresEventStore({ connectionString }, { schema: "agent_runs" });
const registry = new ToolRegistry();
const model = scriptedModel([final("Hello!")]);

const result = await runAgent("Say hello", model, registry, { store, runId: "hello-1" });
console.log(result.status, await store.list()); // done [{ runId: "hello-1", events: 3, outcome: { ... } }]

// Any other process or machine on the same database: the run goes on from its log, asking nothing twice.
const elsewhere = new PostgresEventStore({ connectionString }, { schema: "agent_runs" });
const resumed = await resumeAgent("hello-1", model, registry, { store: elsewhere });
console.log(resumed.status); // done: a finished run comes back as it was
await elsewhere.close();
await store.close();
