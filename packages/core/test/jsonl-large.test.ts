import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statfsSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  asks,
  final,
  Journal,
  MemoryEventStore,
  type Model,
  type ModelReply,
  resumeAgent,
  runAgent,
  type StoredEvent,
  ToolRegistry,
  toolCall,
} from "../src/index.js";
import { JsonlEventStore } from "../src/jsonl-store.js";

// A log larger than the longest string V8 can make (512 MiB), written by the library itself: six
// tool results of 95 MB each, kept whole (`maxResultChars: Infinity`). It is read, listed, resumed
// and repaired line by line. The file is made by a real run, as quickly as the disk allows.

const RESULT_CHARS = 95_000_000;
const CALLS = 6;
const RUN_ID = "huge";
const FILE_BYTES = 512 * 1024 * 1024;

/** A model answering by position: six dumps, then a call that needs approval, then the answer. */
const model: Model = (messages): ModelReply => {
  const step = messages.filter((message) => message.role === "assistant").length;
  if (step === 0) return asks(...Array.from({ length: CALLS }, (_, n) => toolCall(`d${n}`, "dump", { n })));
  if (step === 1) return asks(toolCall("c1", "confirm", {}));
  return final("All dumped.");
};

function registry(chars = RESULT_CHARS): ToolRegistry {
  const tools = new ToolRegistry();
  const parameters = { type: "object", properties: { n: { type: "number" } } } as const;
  tools.register("dump", "Returns a very long text.", parameters, () => "x".repeat(chars));
  tools.register("confirm", "Asks before going on.", { type: "object" }, () => "confirmed", { needsApproval: true });
  return tools;
}

/**
 * The huge log, quickly: a real run with short dumps is logged, then its events are journaled
 * again into `directory` with every dump's result as long as a real one would be. The machine
 * never has to hold the huge results, which is what makes it quick.
 */
async function hugeLog(directory: string): Promise<StoredEvent[]> {
  const small = new MemoryEventStore();
  const paused = await runAgent("Dump it all.", model, registry(1), {
    store: small,
    runId: RUN_ID,
    tokenBudget: Number.POSITIVE_INFINITY,
  });
  expect(paused.status).toBe("awaiting_approval");
  const huge = new JsonlEventStore(directory, { durability: "none" });
  const journal = new Journal(huge, RUN_ID);
  const big = "x".repeat(RESULT_CHARS);
  for (const { seq: _seq, at: _at, ...event } of await small.read(RUN_ID)) {
    await journal.commit(event.type === "tool.finished" ? { ...event, content: big } : event);
  }
  return small.read(RUN_ID);
}

describe("a JSONL log over 512 MiB", () => {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-huge-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("is written, read, listed, resumed and repaired line by line; a broken neighbour spoils only itself", {
    timeout: 90_000,
  }, async () => {
    const { bavail, bsize } = statfsSync(directory);
    // The log, and the repair's copy of it beside it.
    expect(bavail * bsize, `free disk in ${directory}`).toBeGreaterThan(2 * CALLS * RESULT_CHARS + 100_000_000);
    const events = await hugeLog(directory);
    const file = join(directory, `${RUN_ID}.jsonl`);
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(FILE_BYTES);

    mkdirSync(join(directory, "a-directory.jsonl"));
    writeFileSync(join(directory, "broken.jsonl"), Buffer.from([0xff, 0x0a]));
    expect(await new JsonlEventStore(directory).list()).toEqual([
      { runId: RUN_ID, task: "Dump it all.", startedAt: expect.any(String), events: events.length, outcome: null },
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
