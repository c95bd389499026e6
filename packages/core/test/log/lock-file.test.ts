import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  isStale,
  type LockRecord,
  newLockRecord,
  readLockFile,
  runLockedError,
  sweepLockFile,
  tryLockFile,
  unlockFile,
} from "../../src/stores/lock-file.js";

let directory = "";
afterEach(() => rmSync(directory, { recursive: true, force: true }));

/** A fresh lock path in a new directory. */
function lockPath(): string {
  directory = mkdtempSync(join(tmpdir(), "agentloop-lock-"));
  return join(directory, "run.jsonl.lock");
}

/** The id of a process that has ended (and was reaped). */
function deadPid(): number {
  const { pid } = spawnSync("true");
  if (pid === undefined) throw new Error("no child process");
  return pid;
}

function record(overrides: Partial<LockRecord>): LockRecord {
  return { ...newLockRecord(), ...overrides };
}

function write(path: string, owner: LockRecord): void {
  writeFileSync(path, JSON.stringify(owner));
}

const tokenOf = (attempt: ReturnType<typeof tryLockFile>) => ("token" in attempt ? attempt.token : null);

describe("lock files", () => {
  it("takes a free lock whole: owner pid, host, time and token, and no file besides it", () => {
    const path = lockPath();
    const token = tokenOf(tryLockFile(path));
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect(readLockFile(path)).toMatchObject({ pid: process.pid, host: hostname(), token });
    expect(readdirSync(directory)).toEqual(["run.jsonl.lock"]);
    unlockFile(path, token ?? "");
    expect(existsSync(path)).toBe(false);
  });

  it("tells who holds a live lock, and leaves it alone", () => {
    const path = lockPath();
    const token = tokenOf(tryLockFile(path));
    const attempt = tryLockFile(path);
    expect(attempt).toEqual({ owner: readLockFile(path) });
    unlockFile(path, "00000000-0000-4000-8000-000000000000");
    expect(readLockFile(path)?.token).toBe(token);
    expect(readdirSync(directory)).toEqual(["run.jsonl.lock"]);
  });

  it("takes over the lock of a dead process on this host", () => {
    const path = lockPath();
    const stale = record({ pid: deadPid() });
    write(path, stale);
    expect(isStale(stale)).toBe(true);
    const token = tokenOf(tryLockFile(path));
    expect(token).not.toBeNull();
    expect(readLockFile(path)).toMatchObject({ pid: process.pid, token });
    expect(readdirSync(directory)).toEqual(["run.jsonl.lock"]);
  });

  it("judges only an owner of this boot and PID namespace: any other is alive, whatever its pid", () => {
    expect(newLockRecord().boot).toMatch(/^[0-9a-f-]{36}$/);
    expect(newLockRecord().pidNamespace).toMatch(/^pid:\[\d+\]$/);
    const pid = deadPid();
    expect(isStale(record({ pid }))).toBe(true);
    // An earlier boot of this host cannot be told from another machine of the same name.
    expect(isStale(record({ pid, boot: "an-earlier-boot" }))).toBe(false);
    expect(isStale(record({ pid, pidNamespace: "pid:[4026599999]" }))).toBe(false);
    const { pidNamespace: _, ...older } = record({ pid });
    expect(isStale(older)).toBe(false);
  });

  it("tells how to remove by hand a lock it cannot judge, naming the owner's PID namespace", () => {
    const owner = record({ pid: 7, pidNamespace: "pid:[4026599999]", since: "2026-01-02T03:04:05.000Z" });
    const { pidNamespace: _, ...older } = owner;
    const error = (lock: LockRecord) => runLockedError("r", lock, "lock file r.lock", "rm it").message;
    expect(error(owner)).toBe(
      `run 'r' is being written elsewhere: by process 7 in PID namespace pid:[4026599999] on host '${hostname()}' since 2026-01-02T03:04:05.000Z (lock file r.lock); a lock from another PID namespace (another container's) is never taken over: if no process there writes this run any more, rm it`,
    );
    expect(error(older)).toContain("by process 7 on host");
    expect(error(older)).toContain("a lock that names no PID namespace (an older writer's) is never taken over: if no");
    expect(error({ ...owner, boot: "an-earlier-boot" })).toContain(
      "a lock from another boot (an-earlier-boot: an earlier boot, or another machine of this name) is never taken over",
    );
  });

  it("refuses a lock from another host, or one that cannot be read, whoever its pid", () => {
    const path = lockPath();
    const foreign = record({ pid: deadPid(), host: "elsewhere.example" });
    write(path, foreign);
    expect(isStale(foreign)).toBe(false);
    expect(tryLockFile(path)).toEqual({ owner: foreign });
    for (const text of ["", "{", JSON.stringify({ ...foreign, token: "../../x" }), JSON.stringify({ pid: 0 })]) {
      writeFileSync(path, text);
      expect(tryLockFile(path)).toEqual({ owner: null });
      expect(readFileSync(path, "utf8")).toBe(text);
    }
  });

  it("leaves a stale lock to a live process that is taking it over (its guard file)", () => {
    const path = lockPath();
    const stale = record({ pid: deadPid() });
    write(path, stale);
    const taker = record({});
    write(`${path}.takeover-${stale.token}`, taker);
    expect(tryLockFile(path)).toEqual({ owner: taker });
    expect(readLockFile(path)).toEqual(stale);
  });

  it("takes over a stale lock whose taker died in the middle, guard and all", () => {
    const path = lockPath();
    const stale = record({ pid: deadPid() });
    write(path, stale);
    write(`${path}.takeover-${stale.token}`, record({ pid: deadPid() }));
    const token = tokenOf(tryLockFile(path));
    expect(readLockFile(path)?.token).toBe(token);
    // Both guards are gone: the dead taker's was taken over in turn, then released.
    expect(readdirSync(directory).sort()).toEqual(["run.jsonl.lock"]);
  });

  it("sweeps what dead takers left beside a lock: their hidden temps and unfinished guards, never a live one's", () => {
    const path = lockPath();
    const dead = record({ pid: deadPid() });
    const live = record({});
    const names = {
      deadTemp: `.run.jsonl.lock.${dead.pid}.${dead.token}`,
      liveTemp: `.run.jsonl.lock.${live.pid}.${live.token}`,
      deadGuard: `run.jsonl.lock.takeover-${dead.token}`,
      liveGuard: `run.jsonl.lock.takeover-${live.token}`,
    };
    writeFileSync(join(directory, names.deadTemp), JSON.stringify(dead));
    writeFileSync(join(directory, names.liveTemp), JSON.stringify(live));
    // Another namespace's taker, whose pid names no process here: its record says it is out of sight.
    const contained = record({ pid: deadPid(), pidNamespace: "pid:[4026599999]" });
    const containedTemp = `.run.jsonl.lock.${contained.pid}.${contained.token}`;
    writeFileSync(join(directory, containedTemp), JSON.stringify(contained));
    write(join(directory, names.deadGuard), dead);
    write(join(directory, names.liveGuard), live);
    sweepLockFile(path);
    expect(readdirSync(directory).sort()).toEqual([names.liveTemp, names.liveGuard, containedTemp].sort());
  });
});
