import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventLogError, final, resumeAgent, runAgent, scriptedModel, ToolRegistry } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";

const directory = mkdtempSync(join(tmpdir(), "agentloop-runs-"));
// "batch" is the default: an append resolves once its line is on disk, one fsync for the appends in flight.
const store = new JsonlEventStore(directory, { durability: "batch" });
const registry = new ToolRegistry();
await runAgent("Say hello", scriptedModel([final("Hello!")]), registry, { store, runId: "hello-1" });

// One writer per run: while someone holds the run (here another store object; another process alike),
const other = new JsonlEventStore(directory);
const lock = await other.acquire("hello-1");
// every other writer is refused at once, told which process holds it, on which host, since when.
await assert.rejects(
  resumeAgent("hello-1", scriptedModel([]), registry, { store }),
  (error) => EventLogError.isInstance(error) && error.message.includes("is being written elsewhere: by process"),
);
await lock.release();
assert.equal((await resumeAgent("hello-1", scriptedModel([]), registry, { store })).status, "done");
