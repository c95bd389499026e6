import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./cli.js";
import { agentloop } from "./in-process.js";

// The core's golden log of a run with retries: a 429 waited out, then a 529 and a 500 on the
// run's model, and the answer from the fallback model.
const GOLDEN = join(import.meta.dirname, "..", "..", "core", "test", "fixtures", "golden", "v4-retries.jsonl");

function copy(): string {
  const log = join(tempDir(), "v4-retries.jsonl");
  copyFileSync(GOLDEN, log);
  return log;
}

describe("failed model attempts", () => {
  it("show lists each one: the model, whether it is retried, the provider's wait, the error", async () => {
    const shown = await agentloop(["show", copy()]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(
      "model.failed     model 0 · retryable, retry-after 2 ms · model call 1 failed: Error: 429 Rate limit reached",
    );
    expect(shown.stdout).toContain("model 0 · retryable · model call 2 failed: Error: 500 The server had an error");
    expect(shown.stdout.match(/retry\.waited/g)).toHaveLength(2);
  });

  it("the report lists them too", async () => {
    const log = copy();
    const out = join(tempDir(), "report.html");
    const made = await agentloop(["show", log, "--html", out]);
    expect(made.code).toBe(0);
    const html = readFileSync(out, "utf8");
    expect(html).toContain("model.failed");
    expect(html).toContain(
      "model 0 · retryable, retry-after 2 ms · model call 1 failed: Error: 429 Rate limit reached",
    );
  });
});
