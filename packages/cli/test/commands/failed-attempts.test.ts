import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixture, tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";
import { RATE_LIMITED, startAnswerServer } from "../openai-answer-server.js";
import { reportEventTexts } from "../report-page.js";

// The core's golden log of a run with retries: a 429 waited out, then a 529 and a 500 on the
// run's model, and the answer from the fallback model.
const GOLDEN = join(import.meta.dirname, "..", "..", "..", "core", "test", "fixtures", "golden", "v4-retries.jsonl");

function copy(): string {
  const log = join(tempDir(), "v4-retries.jsonl");
  copyFileSync(GOLDEN, log);
  return log;
}

describe("failed model attempts", () => {
  it("show lists each one: the model, whether it is retried, the provider's wait, the error", async () => {
    const shown = await agentloop(["show", copy()]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /model\.failed +model 0 · retryable, retry-after 2 ms · model call 1 failed: Error: 429 Rate limit reached/,
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
    expect(reportEventTexts(html)).toContain(
      "model failed: model 0 · retryable, retry-after 2 ms · model call 1 failed: Error: 429 Rate limit reached for gpt-4.1-mini",
    );
  });

  it("a live run with --retry shows each failed attempt and the wait as they happen, then goes on", async () => {
    const server = await startAnswerServer("It is 30 °C in Pune.", [RATE_LIMITED]);
    const store = join(tempDir(), "runs");
    const env = { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseUrl };
    try {
      const ran = await agentloop(
        [
          ...["run", "--tools", fixture("tools.mjs"), "--model", "openai:gpt-4.1-mini", "--retry", "2"],
          ...["--store", store, "--run-id", "r", "--no-color", "t"],
        ],
        env,
      );
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stdout).toMatch(
        /^failed {4}model 0 · retryable, retry-after 1 ms · model call 1 failed: RateLimitError: 429 Rate limit reached for gpt-4\.1-mini/m,
      );
      expect(ran.stdout).toContain("\nwaiting   1 ms before model call 1 is tried again\n");
      expect(ran.stdout).toContain("progress  retryWait · step 0 of 50");
      expect(ran.stdout).toContain("It is 30 °C in Pune.");
      // One request per attempt: the SDK's own retries are off in a run that retries itself.
      expect(server.count()).toBe(2);
    } finally {
      server.close();
    }
  });

  it("--retry takes a whole number, 0 or more", async () => {
    const ran = await agentloop([
      "run",
      "--tools",
      fixture("tools.mjs"),
      "--script",
      fixture("weather-script.json"),
      "--retry",
      "two",
      "t",
    ]);
    expect(ran).toMatchObject({ code: 2, stdout: "" });
    expect(ran.stderr).toBe("agentloop: --retry must be a whole number, 0 or more; got 'two'\n");
  });
});
