import { linkSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { EventLogError } from "./event-log-error.js";

/**
 * Who holds a run's lock and since when (ISO 8601): a process on a host, the Linux boot it runs
 * in when known, and a token unique to this taking of the lock.
 */
export interface LockRecord {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  readonly token: string;
  readonly boot?: string;
}

/** Taken (`token` releases it), or held by `owner` (`null`: a lock file that cannot be read). */
export type LockAttempt = { readonly token: string } | { readonly owner: LockRecord | null };

const HOST = hostname();
const BOOT = readQuietly("/proc/sys/kernel/random/boot_id")?.trim();
const TOKEN = /^[0-9a-f-]{36}$/;
// A stale guard whose own taker died is itself taken over, a level deeper; past this, refuse.
const MAX_DEPTH = 3;
// A lock released and taken again by others between our tries, this many times in a row: refuse.
const MAX_TRIES = 100;

/**
 * Takes the lock file at `path`, or tells who holds it. The file appears whole or not at all: it is
 * written under a unique name first (`O_EXCL`), then hard-linked to `path`, which fails if `path`
 * exists. A lock whose owner is dead (same host, and its process gone or its boot over) is taken
 * over by renaming a new lock onto it, under a guard file named after the dead owner's token that
 * only one taker can create; so two takers never both win, and the lock file never goes missing.
 */
export function tryLockFile(path: string, depth = 0): LockAttempt {
  const mine = newLockRecord();
  const temp = tempOf(path, mine);
  writeFileSync(temp, JSON.stringify(mine), { flag: "wx" });
  try {
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      if (linked(temp, path)) return { token: mine.token };
      const owner = readLockFile(path);
      if (owner === undefined) continue; // released meanwhile: try again
      if (owner === null || !isStale(owner) || depth >= MAX_DEPTH) return { owner };
      const taken = takeOver(path, owner, temp, depth);
      if (taken === true) return { token: mine.token };
      if (taken !== false) return taken;
    }
    return { owner: readLockFile(path) ?? null };
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * Removes what processes that died while they took the lock at `path` left beside it: their
 * hidden temp files, and guard files of takeovers they did not finish.
 */
export function sweepLockFile(path: string): void {
  const directory = dirname(path);
  const temp = `.${basename(path)}.`;
  const guard = `${basename(path)}.takeover-`;
  for (const name of readdirSync(directory)) {
    if (name.startsWith(temp)) {
      const pid = Number(name.split(".").at(-2));
      if (Number.isSafeInteger(pid) && pid !== process.pid && !isAlive(pid))
        rmSync(join(directory, name), { force: true });
    } else if (name.startsWith(guard)) {
      const owner = readLockFile(join(directory, name));
      if (owner !== undefined && owner !== null && isStale(owner)) rmSync(join(directory, name), { force: true });
    }
  }
}

/** Removes the lock file at `path` if it is still the one `token` took. */
export function unlockFile(path: string, token: string): void {
  if (readLockFile(path)?.token === token) rmSync(path, { force: true });
}

/** A lock record for this process, taken now, with a new token. */
export function newLockRecord(): LockRecord {
  return {
    pid: process.pid,
    host: HOST,
    since: new Date().toISOString(),
    token: globalThis.crypto.randomUUID(),
    ...(BOOT === undefined ? {} : { boot: BOOT }),
  };
}

/**
 * The error for a run whose lock another writer holds: who (process, host, since when), where the
 * lock is kept (`where`), and what to do; `removal` says how to remove a lock by hand, for a lock
 * no process here can judge (another host's, or one that cannot be read).
 */
export function runLockedError(runId: string, owner: LockRecord | null, where: string, removal: string): EventLogError {
  const details = { runId, position: 0 };
  const lead = `run '${runId}' is being written elsewhere`;
  if (owner === null) {
    return new EventLogError(
      `${lead}: ${where} holds a lock that cannot be read; if no process writes this run any more, ${removal}`,
      details,
    );
  }
  const who = `process ${owner.pid} on host '${owner.host}' since ${owner.since} (${where})`;
  if (owner.host !== HOST) {
    return new EventLogError(
      `${lead}: by ${who}; a lock from another host is never taken over: if no process there writes this run any more, ${removal}`,
      details,
    );
  }
  const advice =
    owner.pid === process.pid
      ? "that is this process: another caller holds the run, wait until it releases it"
      : "wait until that process ends the run, or stop it (the lock of a process that has died is taken over)";
  return new EventLogError(`${lead}: by ${who}; ${advice}`, details);
}

/** The lock file's record; `undefined` when there is none, `null` when it cannot be read as one. */
export function readLockFile(path: string): LockRecord | null | undefined {
  let text: string | undefined;
  try {
    text = readOrUndefined(path);
  } catch {
    return null;
  }
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Record<keyof LockRecord, unknown>>;
    const { pid, host, since, token, boot } = value;
    const valid =
      Number.isSafeInteger(pid) &&
      (pid as number) > 0 &&
      typeof host === "string" &&
      typeof since === "string" &&
      typeof token === "string" &&
      TOKEN.test(token) &&
      (boot === undefined || typeof boot === "string");
    return valid ? (value as LockRecord) : null;
  } catch {
    return null;
  }
}

/** Whether the lock's owner is certainly dead: same host, and a process that no longer runs (or a boot that ended). */
export function isStale(owner: LockRecord): boolean {
  if (owner.host !== HOST) return false;
  if (owner.boot !== undefined && BOOT !== undefined && owner.boot !== BOOT) return true;
  if (owner.pid === process.pid) return false;
  return !isAlive(owner.pid);
}

/** Replaces the stale lock with ours (`temp`) under the guard; `false` when it changed meanwhile. */
function takeOver(path: string, stale: LockRecord, temp: string, depth: number): boolean | LockAttempt {
  const guard = `${path}.takeover-${stale.token}`;
  const taken = tryLockFile(guard, depth + 1);
  if (!("token" in taken)) return taken; // another live process is taking it over right now
  try {
    // Only the guard's holder may replace this stale lock, and its dead owner cannot release it.
    if (readLockFile(path)?.token !== stale.token) return false;
    renameSync(temp, path);
    sweepLockFile(path);
    return true;
  } finally {
    unlockFile(guard, taken.token);
  }
}

/** Where a lock is written before it is linked into place: hidden, named after its process and token. */
function tempOf(path: string, record: LockRecord): string {
  return join(dirname(path), `.${basename(path)}.${record.pid}.${record.token}`);
}

function linked(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  // A zombie (dead, not yet reaped by its parent) still answers signal 0.
  const stat = readQuietly(`/proc/${pid}/stat`);
  const state = stat?.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The file's text, or `undefined` when it cannot be read (not Linux, no such process). */
function readQuietly(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
