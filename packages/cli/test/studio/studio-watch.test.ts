import { appendFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { foldWhileIdle } from "../../src/studio/watch/idle-fold.js";
import { JsonlWatcher } from "../../src/studio/watch/jsonl-watcher.js";
import type { StoreWatcher } from "../../src/studio/watch/run-set.js";
import { SqliteWatcher } from "../../src/studio/watch/sqlite-watcher.js";
import { fixture, tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";
import { readEvents, sealedFor } from "../logs.js";
import { openSqlite } from "../sqlite-connection.js";

const tools = fixture("tools.mjs");
const watchers: StoreWatcher[] = [];
afterEach(() => {
  for (const watcher of watchers.splice(0)) watcher.close();
});

/**
 * Resolves once the watcher announces a change of `runId`; rejects, naming the run, if none comes
 * within `ms` (a bound for a hung watcher, far above what a loaded machine takes).
 */
function nextChange(watcher: StoreWatcher, runId: string, ms = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no change of ${runId} within ${ms} ms`)), ms);
    const stop = watcher.runs.listen((changed) => {
      if (changed !== runId) return;
      clearTimeout(timer);
      stop();
      resolve();
    });
  });
}

async function weatherEvents(runId: string) {
  const dir = tempDir();
  await agentloop([
    "run",
    "--tools",
    tools,
    "--store",
    dir,
    "--run-id",
    "w",
    "--script",
    fixture("weather-script.json"),
    "Weather?",
  ]);
  return sealedFor(runId, readEvents(join(dir, "w.jsonl"))).map((event) => `${JSON.stringify(event)}\n`);
}

describe("JsonlWatcher", () => {
  it("folds a line written in two pieces once it is whole", async () => {
    const dir = tempDir();
    const lines = await weatherEvents("torn");
    const file = join(dir, "torn.jsonl");
    writeFileSync(file, lines.slice(0, 2).join(""));
    const watcher = new JsonlWatcher(dir);
    watchers.push(watcher);
    await watcher.start();
    const third = lines[2] ?? "";
    appendFileSync(file, third.slice(0, 10));
    await nextChange(watcher, "torn");
    expect(watcher.runs.get("torn")?.length).toBe(2);
    appendFileSync(file, third.slice(10));
    await nextChange(watcher, "torn");
    expect(watcher.runs.get("torn")?.row()).toMatchObject({ events: 3, refused: null, status: "unfinished" });
  });

  it("announces a change of an agent tool's child run for its parent too, whose page shows the tree", async () => {
    const dir = tempDir();
    const tree = ["run", "--tools", fixture("agent-tools.mjs"), "--script", fixture("agent-script.json")];
    await agentloop([...tree, "--store", dir, "--run-id", "p", "Email ana."]);
    const child = join(dir, "p.r1.jsonl");
    const lines = readEvents(child).map((event) => `${JSON.stringify(event)}\n`);
    writeFileSync(child, lines.slice(0, 1).join(""));
    const watcher = new JsonlWatcher(dir);
    watchers.push(watcher);
    await watcher.start();
    const changes = Promise.all([nextChange(watcher, "p.r1"), nextChange(watcher, "p")]);
    appendFileSync(child, lines.slice(1).join(""));
    await changes;
    expect(watcher.runs.get("p.r1")?.row()).toMatchObject({
      status: "awaiting_approval",
      calledBy: { runId: "p", callId: "r1" },
    });
  });

  it("reads a log again from its start when it became shorter (a repaired log)", async () => {
    const dir = tempDir();
    const lines = await weatherEvents("cut");
    const file = join(dir, "cut.jsonl");
    writeFileSync(file, `${lines.join("")}{"torn`);
    const watcher = new JsonlWatcher(dir);
    watchers.push(watcher);
    await watcher.start();
    expect(watcher.runs.get("cut")?.row().status).toBe("done");
    truncateSync(file, Buffer.byteLength(lines.slice(0, 4).join("")));
    await nextChange(watcher, "cut");
    expect(watcher.runs.get("cut")?.row()).toMatchObject({ events: 4, status: "unfinished", refused: null });
  });

  it("refuses a log whose appended event does not fit, with the reason, and keeps the others", async () => {
    const dir = tempDir();
    const lines = await weatherEvents("bad");
    const file = join(dir, "bad.jsonl");
    writeFileSync(file, lines.slice(0, 3).join(""));
    const watcher = new JsonlWatcher(dir);
    watchers.push(watcher);
    await watcher.start();
    appendFileSync(file, lines[4] ?? "");
    await nextChange(watcher, "bad");
    expect(watcher.runs.get("bad")?.row()).toMatchObject({
      status: "refused",
      refused: "run 'bad': event 3 has seq 4, expected 3",
    });
  });
});

describe("SqliteWatcher", () => {
  it("sees events another connection commits, reading only the new rows", async () => {
    const dir = tempDir();
    const db = join(dir, "runs.db");
    const run = ["--tools", tools, "--store", db, "--run-id", "p", "--script", fixture("approval-script.json")];
    await agentloop(["run", ...run, "Report Delhi"]);
    const watcher = new SqliteWatcher(db);
    watchers.push(watcher);
    await watcher.start();
    expect(watcher.runs.get("p")?.row().status).toBe("awaiting_approval");
    const heard = nextChange(watcher, "p");
    const rest = ["--tools", tools, "--script", fixture("approval-rest.json"), "--approve", "m1"];
    expect((await agentloop(["resume", `${db}#p`, ...rest])).code).toBe(0);
    await heard;
    // The resume commits its events one by one: a look may fall between two of them, and the next one reads
    // the rest. Rows read twice would not fit the fold (their seq repeats) and would refuse the run.
    await vi.waitFor(
      () => expect(watcher.runs.get("p")?.row()).toMatchObject({ status: "done", refused: null, events: 10 }),
      { timeout: hangGuard(45_000) },
    );
  });

  it("refuses a run whose row is not JSON, with the reason", async () => {
    const dir = tempDir();
    const db = join(dir, "runs.db");
    await agentloop([
      "run",
      "--tools",
      tools,
      "--store",
      db,
      "--run-id",
      "ok",
      "--script",
      fixture("weather-script.json"),
      "W?",
    ]);
    // Through the SQLite this Node's store uses: better-sqlite3's build is for Node 20 only.
    const raw = openSqlite(db);
    raw.exec("INSERT INTO events (run_id, seq, type, at, data) VALUES ('bad', 0, 'run.started', 'x', '{not')");
    raw.close();
    const watcher = new SqliteWatcher(db);
    watchers.push(watcher);
    await watcher.start();
    expect(watcher.runs.get("bad")?.row()).toMatchObject({
      status: "refused",
      refused: "run 'bad': event 0 is not valid JSON",
    });
    expect(watcher.runs.get("ok")?.row().status).toBe("done");
  });
});

describe("foldWhileIdle", () => {
  it("folds every run a slice at a time, finding a log the machine refuses", async () => {
    const dir = tempDir();
    const lines = await weatherEvents("whole");
    writeFileSync(join(dir, "whole.jsonl"), lines.join(""));
    // A tool.finished with no tool.started before it: every line passes the checker, the machine refuses it.
    const events = readEvents(join(dir, "whole.jsonl"));
    const misfit = sealedFor("misfit", [...events.slice(0, 2), ...events.slice(3)]);
    writeFileSync(join(dir, "misfit.jsonl"), misfit.map((event) => `${JSON.stringify(event)}\n`).join(""));
    const watcher = new JsonlWatcher(dir);
    watchers.push(watcher);
    await watcher.start();
    expect(watcher.runs.all().map((run) => run.folded)).toEqual([false, false]);
    const stop = foldWhileIdle(watcher.runs);
    try {
      await vi.waitFor(() => expect(watcher.runs.all().every((run) => run.folded)).toBe(true), {
        timeout: hangGuard(45_000),
      });
    } finally {
      stop();
    }
    expect(watcher.runs.get("whole")?.row()).toMatchObject({ status: "done", refused: null });
    expect(watcher.runs.get("misfit")?.row()).toMatchObject({
      status: "refused",
      refused: expect.stringMatching(/^run 'misfit': event 2 /),
    });
  });
});
