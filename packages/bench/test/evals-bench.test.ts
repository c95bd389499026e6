import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../dist/evals-main.js", import.meta.url));

// The bench is a command, not a test: this only checks that it still runs at its tiny size and
// prints every row. No number it prints is asserted.
describe("pnpm bench:evals --tiny", () => {
  it("exits 0 and prints every row", { timeout: hangGuard(120_000) }, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [main, "--tiny"], { maxBuffer: 1 << 20 });
    for (const row of [
      "| by hand: runAgent, read the log, compare the answer |",
      "| evaluate, exactAnswer + toolCalls, concurrency 1 |",
      "| evaluate − by hand, per case |",
      "| 50 scripted cases, concurrency 4 | value |",
      "| wall time |",
      "| peak RSS of the process |",
    ]) {
      expect(stdout).toContain(row);
    }
  });
});
