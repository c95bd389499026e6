import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture, tempDir } from "../cli.js";
import { agentloop, runScripted } from "../in-process.js";
import { readEvents, writeEvents } from "../logs.js";
import { type Studio, startStudio } from "../studio.js";

const GOLDEN = join(import.meta.dirname, "..", "..", "..", "core", "test", "fixtures", "golden");
const store = join(tempDir(), "runs");

/** Each run of the store, and the status every view must give it. */
const EXPECTED: Record<string, string> = {
  done: "done",
  paused: "awaiting_approval",
  "model-failed": "model_failed",
  retrying: "unfinished",
  tampered: "refused",
  garbage: "refused",
};

let studio: Studio;

beforeAll(async () => {
  await runScripted(store, "done", fixture("weather-script.json"), "Weather in Pune?");
  await runScripted(store, "paused", fixture("approval-script.json"), "Mail");
  // Its model failed, its one retry failed, and its fallback model failed without a retry left: the run gave up.
  const [started, failed, waited] = readEvents(join(GOLDEN, "v4-retries.jsonl"));
  if (started?.type !== "run.started" || failed?.type !== "model.failed" || waited === undefined) {
    throw new Error("v4-retries.jsonl no longer starts with a failed call and its wait");
  }
  const gaveUp = { ...failed, error: "model call 1 failed: Error: 401 bad key", retryable: false, model: 1 };
  writeEvents(join(store, "model-failed.jsonl"), [started, failed, waited, failed, gaveUp]);
  // Killed while it waited to try again: it goes on when resumed.
  writeEvents(join(store, "retrying.jsonl"), [started, failed]);
  // An event changed after it was sealed: the chain of hashes breaks there.
  writeEvents(join(store, "tampered.jsonl"), readEvents(join(store, "done.jsonl")));
  const lines = readFileSync(join(store, "tampered.jsonl"), "utf8");
  writeFileSync(join(store, "tampered.jsonl"), lines.replace('"celsius":30', '"celsius":-5'));
  writeFileSync(join(store, "garbage.jsonl"), "this is not a log\n");
  studio = await startStudio(["--store", store]);
}, hangGuard(60_000));

afterAll(() => {
  studio?.child.kill("SIGTERM");
});

describe("one status vocabulary in every view", { timeout: hangGuard(60_000) }, () => {
  // Regression test; before the change: list said `unfinished` for a run waiting for a decision,
  // a run whose model failed and a tampered log, and left out a log it could not parse without a
  // word, while the studio said `awaiting_approval` and `refused`.
  it("list names each run's status as the studio does, and an unreadable log as refused with its reason", async () => {
    const listed = await agentloop(["list", "--store", store, "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as { runId: string; status: string; refused?: string }[];
    const statuses = Object.fromEntries(rows.map((row) => [row.runId, row.status]));
    expect(statuses).toEqual(EXPECTED);
    expect(rows.find((row) => row.runId === "garbage")?.refused).toMatch(/garbage.*line 1/);
    expect(rows.find((row) => row.runId === "tampered")?.refused).toMatch(/hash/);
    await expect
      .poll(async () => {
        const runs = (await (await studio.get("/api/runs")).json()) as { runId: string; status: string }[];
        return Object.fromEntries(runs.map((run) => [run.runId, run.status]));
      })
      .toEqual(EXPECTED);
  });

  it("list's table says the status, and the reason under a refused log", async () => {
    const listed = await agentloop(["list", "--store", store, "--no-color"]);
    expect(listed.code).toBe(0);
    for (const [runId, status] of Object.entries(EXPECTED)) {
      expect(listed.stdout).toMatch(new RegExp(`^${runId} .* ${status} `, "m"));
    }
    expect(listed.stdout).toMatch(/^ +refused: .*garbage.*line 1/m);
  });

  it("show and its report name the same status as list", async () => {
    for (const [runId, status] of Object.entries(EXPECTED)) {
      if (status === "refused") continue;
      const out = join(tempDir(), `${runId}.html`);
      const shown = await agentloop(["show", join(store, `${runId}.jsonl`), "--no-color", "--html", out]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(new RegExp(`^result {3}${status} `, "m"));
      expect(readFileSync(out, "utf8")).toContain(`<div class="outcome status-${status}" id="outcome">${status} ·`);
    }
  });

  it("show refuses a tampered and an unreadable log, saying why", async () => {
    for (const runId of ["tampered", "garbage"]) {
      const shown = await agentloop(["show", join(store, `${runId}.jsonl`), "--no-color"]);
      expect(shown.code).toBe(2);
      expect(shown.stderr).toMatch(new RegExp(`${runId}`));
    }
  });
});
