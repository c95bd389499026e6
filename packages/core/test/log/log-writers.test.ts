import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "../src");

/** Where core's sources hand an event to a journal, by file: `file: count`. */
function commitSites(): Record<string, number> {
  const sites: Record<string, number> = {};
  for (const file of readdirSync(SRC, { recursive: true, encoding: "utf8" })) {
    if (!file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
    const count = readFileSync(join(SRC, file), "utf8").split(".commit(").length - 1;
    if (count > 0) sites[file] = count;
  }
  return sites;
}

describe("the run's log", () => {
  // Regression test; before the change: 8 places in 3 files handed events to the journal (the start, the
  // end, the cancellation, each answer and each tool's start, the fork's copy and the mended end).
  // Expected: the run loop writes a live run's log, from one place; besides it only a fork's copy and the
  // end that a crash left unlogged, both written before any run goes on.
  it("is written from the run loop alone, besides a fork's copy and the mended end of a crashed run", () => {
    expect(commitSites()).toEqual({ "run/loop/run-loop.ts": 1, "run/api/resume.ts": 2 });
  });
});
