import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import type { StoredEvent } from "@agentloop/core/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { logError, sampleLog } from "../src/index.js";

// Repair on the full disk that tore the log: a real 1 MiB tmpfs (mounting needs root), filled by
// an append the store could not finish.

let mount = "";
beforeEach(() => {
  mount = mkdtempSync(join(tmpdir(), "agentloop-full-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mount]);
});
afterEach(() => {
  execFileSync("umount", [mount]);
  rmSync(mount, { recursive: true, force: true });
});

const events = sampleLog();

/** Bytes free on the tmpfs. */
function free(): number {
  const { bavail, bsize } = statfsSync(mount);
  return bavail * bsize;
}

/** A store whose log holds the sample's first 3 events, then the start of a 2 MB event the disk had no room for. */
async function tornByFullDisk(): Promise<{ store: JsonlEventStore; log: string }> {
  const store = new JsonlEventStore(join(mount, "runs"), { durability: "none" });
  for (const event of events.slice(0, 3)) await store.append("full", event);
  const huge = { ...events[3], content: "x".repeat(2_000_000) } as StoredEvent;
  expect(await store.append("full", huge).catch((error: unknown) => error)).toMatchObject({ code: "ENOSPC" });
  const log = join(mount, "runs", "full.jsonl");
  expect((await logError(store.read("full"))).message).toContain("line 4 of");
  return { store, log };
}

describe.skipIf(process.getuid?.() !== 0)("repair on the full disk that tore the log (a real 1 MiB tmpfs)", () => {
  it("cuts the torn end in place with the space that is left, far less than a copy of the log", async () => {
    const { store, log } = await tornByFullDisk();
    expect(statSync(log).size).toBeGreaterThan(900_000);
    expect(free()).toBeLessThan(statSync(log).size / 100);
    const inode = statSync(log).ino;
    expect(await store.repair("full")).toBe(1);
    expect(await store.read("full")).toEqual(events.slice(0, 3));
    expect(statSync(log).ino).toBe(inode);
    expect(free()).toBeGreaterThan(900_000);
    await store.append("full", events[3] as StoredEvent);
    expect(await store.read("full")).toEqual(events.slice(0, 4));
  });

  it("with no block left for the run's lock file, says how much space it needs and changes nothing; then repairs", async () => {
    const { store, log } = await tornByFullDisk();
    const filler = join(mount, "filler");
    try {
      for (;;) appendFileSync(filler, Buffer.alloc(4096));
    } catch (error) {
      expect(error).toMatchObject({ code: "ENOSPC" });
    }
    const before = readFileSync(log);
    const refused = await logError(store.repair("full"));
    expect(refused.message).toBe(
      `run 'full': cannot repair ${log}: its file system is full, and repair needs ${statfsSync(mount).bsize} bytes free there for the run's lock file (the log is cut in place and needs none); free that much and repair again`,
    );
    expect(readFileSync(log).equals(before)).toBe(true);
    expect(readdirSync(join(mount, "runs"))).toEqual(["full.jsonl"]); // no lock, whole or half-written
    rmSync(filler);
    expect(await store.repair("full")).toBe(1);
    expect(await store.read("full")).toEqual(events.slice(0, 3));
  });
});
