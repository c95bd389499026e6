import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statfsSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hangGuard } from "../../../../hang-guard.js";
import { asks, final, type Model, type ModelReply, resumeAgent, ToolRegistry, toolCall } from "../../src/index.js";
import { Journal } from "../../src/log/journal.js";
import { JsonlEventStore } from "../../src/stores/jsonl-store.js";

// slow: it writes and reads a log of more than 512 MiB.
// A log larger than the longest string V8 can make (512 MiB), written by the library's journal: six
// tool results of 95 MB each, as a run with `maxResultChars: Infinity` keeps them. It is read,
// listed, resumed and repaired line by line.

const RESULT_CHARS = 95_000_000;
const CALLS = 6;
const RUN_ID = "huge";
const FILE_BYTES = 512 * 1024 * 1024;

/** The model of the resumed run: the dumps and the confirmation are logged already, so it answers. */
const model: Model = (): ModelReply => final("All dumped.");

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  const parameters = { type: "object", properties: { n: { type: "number" } } } as const;
  tools.register("dump", "Returns a very long text.", parameters, () => "x".repeat(RESULT_CHARS));
  tools.register("confirm", "Asks before going on.", { type: "object" }, () => "confirmed", { needsApproval: true });
  return tools;
}

/**
 * The huge log, quickly: the journal writes, into `directory`, the log a run of `model` would
 * have left when it paused, its dumps' results as long as real ones. The log is of schema 1,
 * which has no hash chain: the chain's cost over half a gigabyte (a serialization and a hash of
 * every event at each read) is core's, and would only make this test of the store slower.
 */
async function hugeLog(directory: string): Promise<void> {
  const tools = registry();
  const journal = new Journal(new JsonlEventStore(directory, { durability: "none" }), RUN_ID, [], {
    schemaVersion: 1,
  });
  const settings = {
    task: "Dump it all.",
    system: "Use the tools.",
    maxSteps: 8,
    tokenBudget: Number.POSITIVE_INFINITY,
    tools: tools.specs(),
    approvalRequired: tools.approvalRequired(),
  };
  await journal.commit({ type: "run.started", schemaVersion: 1, settings });
  const dumps = Array.from({ length: CALLS }, (_, n) => toolCall(`d${n}`, "dump", { n }));
  await journal.commit({ type: "model.replied", reply: asks(...dumps) });
  const big = "x".repeat(RESULT_CHARS);
  for (let n = 0; n < CALLS; n++) {
    await journal.commit({ type: "tool.started", callId: `d${n}`, name: "dump" });
    await journal.commit({ type: "tool.finished", callId: `d${n}`, content: big });
  }
  await journal.commit({ type: "model.replied", reply: asks(toolCall("c1", "confirm", {})) });
}

describe("a JSONL log over 512 MiB", () => {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-huge-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("is written, read, listed, resumed and repaired line by line; a broken neighbour spoils only itself", {
    timeout: hangGuard(300_000),
  }, async () => {
    const { bavail, bsize } = statfsSync(directory);
    // The log, and the repair's copy of it beside it.
    expect(bavail * bsize, `free disk in ${directory}`).toBeGreaterThan(2 * CALLS * RESULT_CHARS + 100_000_000);
    await hugeLog(directory);
    const file = join(directory, `${RUN_ID}.jsonl`);
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(FILE_BYTES);

    mkdirSync(join(directory, "a-directory.jsonl"));
    writeFileSync(join(directory, "broken.jsonl"), Buffer.from([0xff, 0x0a]));
    expect(await new JsonlEventStore(directory).list()).toEqual([
      { runId: RUN_ID, task: "Dump it all.", startedAt: expect.any(String), events: 3 + 2 * CALLS, outcome: null },
    ]);

    const resumed = await resumeAgent(RUN_ID, model, registry(), {
      store: new JsonlEventStore(directory, { durability: "none" }),
      decisions: { c1: { approved: true } },
      maxResultChars: Number.POSITIVE_INFINITY,
    });
    expect(resumed).toMatchObject({ status: "done", answer: "All dumped.", steps: 3 });
    expect(resumed.messages.filter((message) => message.content.length === RESULT_CHARS)).toHaveLength(CALLS);
    const finished = statSync(file).size;
    expect(finished).toBeGreaterThan(size);

    appendFileSync(file, '{"seq":99,"at":"2026-01-02T03:04:05.000Z","type":"run.fin');
    expect(await new JsonlEventStore(directory).repair(RUN_ID)).toBe(1);
    expect(statSync(file).size).toBe(finished);
  });
});
