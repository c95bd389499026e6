import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { hangGuard } from "../src/hang-guard.js";
import { sampleLog } from "../src/index.js";

// Files named like logs that are no regular files. A FIFO blocks the thread that opens it and
// `/dev/zero` never ends, so the store runs in a child process (the BUILT core) with a deadline.

const STORE = pathToFileURL(createRequire(import.meta.url).resolve("@agentloop/core/jsonl-store")).href;

let directory = "";
afterEach(() => rmSync(directory, { recursive: true, force: true }));

/** A store directory with one real run, a FIFO and a link to /dev/zero named like logs. */
function storeWithSpecialFiles(): string {
  directory = mkdtempSync(join(tmpdir(), "agentloop-special-"));
  writeFileSync(
    join(directory, "real.jsonl"),
    sampleLog()
      .map((event) => `${JSON.stringify(event)}\n`)
      .join(""),
  );
  execFileSync("mkfifo", [join(directory, "pipe.jsonl")]);
  symlinkSync("/dev/zero", join(directory, "zero.jsonl"));
  return directory;
}

/** Runs `body` (with `store` open on `path`) in a child, killed after 10 s; its stdout as JSON. */
function inChild(path: string, body: string): { readonly output: unknown; readonly timedOut: boolean } {
  const script = `const { JsonlEventStore } = await import(${JSON.stringify(STORE)});
    const store = new JsonlEventStore(${JSON.stringify(path)});
    ${body}`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    timeout: hangGuard(45_000),
    encoding: "utf8",
  });
  return { output: child.status === 0 ? JSON.parse(child.stdout) : child.stderr, timedOut: child.signal !== null };
}

describe("JsonlEventStore and files that are not regular files", () => {
  it("list leaves out a FIFO and a link to /dev/zero named *.jsonl at once, telling why for each", () => {
    const path = storeWithSpecialFiles();
    const { output, timedOut } = inChild(
      path,
      `const skipped = [];
      const runs = await store.list({ onSkip: (note) => skipped.push(note) });
      console.log(JSON.stringify({ runs: runs.map((run) => run.runId), skipped }));`,
    );
    expect(timedOut).toBe(false);
    expect(output).toEqual({
      runs: ["real"],
      skipped: [
        { path: join(path, "pipe.jsonl"), reason: "it is a FIFO, not a regular file" },
        { path: join(path, "zero.jsonl"), reason: "it is a character device, not a regular file" },
      ],
    });
  });

  it("read refuses them at once, naming the path and what it is", () => {
    const path = storeWithSpecialFiles();
    const { output, timedOut } = inChild(
      path,
      `const errors = [];
      for (const runId of ["pipe", "zero"]) await store.read(runId).catch((error) => errors.push(error.name + ": " + error.message));
      console.log(JSON.stringify(errors));`,
    );
    expect(timedOut).toBe(false);
    expect(output).toEqual([
      `NotAFileError: ${join(path, "pipe.jsonl")} is a FIFO, not a regular file`,
      `NotAFileError: ${join(path, "zero.jsonl")} is a character device, not a regular file`,
    ]);
  });
});
