import {
  closeSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { EventLogError } from "../log/index.js";

/**
 * Who holds a run's lock and since when (ISO 8601): a process on a host, and on Linux the boot it
 * runs in and its PID namespace (`pid:[4026531836]`, where `pid` means something), with a token
 * unique to this taking of the lock.
 */
export interface LockRecord {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  readonly token: string;
  readonly boot?: string;
  readonly pidNamespace?: string;
}

/** Taken (`token` releases it), or held by `owner` (`null`: a lock file that cannot be read). */
export type LockAttempt = { readonly token: string } | { readonly owner: LockRecord | null };

const HOST = hostname();
const BOOT = readQuietly("/proc/sys/kernel/random/boot_id")?.trim();
const PID_NAMESPACE = ownPidNamespace();
const TOKEN = /^[0-9a-f-]{36}$/;
// A stale guard whose own taker died is itself taken over, a level deeper; past this, refuse.
const MAX_DEPTH = 3;
// A lock released and taken again by others between our tries, this many times in a row: refuse.
const MAX_TRIES = 100;

/**
 * Takes the lock file at `path`, or tells who holds it. The file appears whole or not at all: it is
 * written under a unique name first (`O_EXCL`), then hard-linked to `path`, which fails if `path`
 * exists. A lock whose owner is dead (same host, boot and PID namespace, and its process gone) is taken
 * over by renaming a new lock onto it, under a guard file named after the dead owner's token that
 * only one taker can create; so two takers never both win, and the lock file never goes missing.
 */
export function tryLockFile(path: string, depth = 0): LockAttempt {
  const mine = newLockRecord();
  const temp = tempOf(path, mine);
  try {
    writeFileSync(temp, JSON.stringify(mine), { flag: "wx" });
  } catch (error) {
    removeFile(temp); // created, then the disk was full: no half-written lock stays behind
    throw error;
  }
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
    removeFile(temp);
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
    if (!name.startsWith(temp) && !name.startsWith(guard)) continue;
    // A temp file names its pid, but only its record says in which namespace: judge by the record.
    // One left half-written (its writer died, or found the disk full) is judged by the pid alone.
    const owner = readLockFile(join(directory, name));
    const pid = name.startsWith(temp) ? Number(name.split(".").at(-2)) : Number.NaN;
    const stale =
      owner === null
        ? Number.isSafeInteger(pid) && pid !== process.pid && !isAlive(pid)
        : owner !== undefined && isStale(owner);
    if (stale) removeFile(join(directory, name));
  }
}

/** Removes the lock file at `path` if it is still the one `token` took. */
export function unlockFile(path: string, token: string): void {
  if (readLockFile(path)?.token === token) removeFile(path);
}

/** A lock record for this process, taken now, with a new token. */
export function newLockRecord(): LockRecord {
  return {
    pid: process.pid,
    host: HOST,
    since: new Date().toISOString(),
    token: globalThis.crypto.randomUUID(),
    ...(BOOT === undefined ? {} : { boot: BOOT }),
    ...(PID_NAMESPACE === undefined ? {} : { pidNamespace: PID_NAMESPACE }),
  };
}

/**
 * The error for a run whose lock another writer holds: who (process, host, since when), where the
 * lock is kept (`where`), and what to do; `removal` says how to remove a lock by hand, for a lock
 * no process here can judge (another host's, boot's or PID namespace's, or one that cannot be read).
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
  const namespace =
    owner.pidNamespace !== undefined && owner.pidNamespace !== PID_NAMESPACE
      ? ` in PID namespace ${owner.pidNamespace}`
      : "";
  const who = `process ${owner.pid}${namespace} on host '${owner.host}' since ${owner.since} (${where})`;
  const unseen = outOfSight(owner);
  if (unseen !== undefined) {
    return new EventLogError(
      `${lead}: by ${who}; ${unseen}: if no process there writes this run any more, ${removal}`,
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
    const { pid, host, since, token, boot, pidNamespace } = value;
    const valid =
      Number.isSafeInteger(pid) &&
      (pid as number) > 0 &&
      typeof host === "string" &&
      typeof since === "string" &&
      typeof token === "string" &&
      TOKEN.test(token) &&
      (boot === undefined || typeof boot === "string") &&
      (pidNamespace === undefined || typeof pidNamespace === "string");
    return valid ? (value as LockRecord) : null;
  } catch {
    return null;
  }
}

/**
 * Whether the lock's owner is certainly dead: a process of this host, boot and PID namespace that
 * no longer runs. An owner this process cannot see (another host, boot or namespace) counts as alive.
 */
export function isStale(owner: LockRecord): boolean {
  if (outOfSight(owner) !== undefined || owner.pid === process.pid) return false;
  return !isAlive(owner.pid);
}

/**
 * Why this process cannot tell whether the owner still runs, or `undefined` when it can: its pid
 * means something only on its host, in its boot and in its PID namespace (a container's pid 7 is
 * another process, or none, outside it), so an owner anywhere else is never judged dead.
 */
function outOfSight(owner: LockRecord): string | undefined {
  const never = "is never taken over";
  if (owner.host !== HOST) return `a lock from another host ${never}`;
  if (owner.boot !== BOOT) {
    return `a lock from another boot (${owner.boot ?? "none named"}: an earlier boot, or another machine of this name) ${never}`;
  }
  // Linux without a /proc of its own: two such processes may well be in two namespaces.
  if (BOOT !== undefined && PID_NAMESPACE === undefined) {
    return `this process cannot tell its own PID namespace (/proc is not its own): a lock ${never}`;
  }
  if (owner.pidNamespace === PID_NAMESPACE) return undefined;
  if (owner.pidNamespace === undefined) return `a lock that names no PID namespace (an older writer's) ${never}`;
  return `a lock from another PID namespace (another container's) ${never}`;
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

/** Removes the file at `path`, if there is one: one `unlink`, where `rmSync` looks at the path twice before. */
function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/** A lock record fits in one read of this many bytes: a lock file is read with one `read`, not `readFileSync`'s two. */
const RECORD_BYTES = 4096;

function readOrUndefined(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const buffer = Buffer.allocUnsafe(RECORD_BYTES);
    const read = readSync(fd, buffer, 0, RECORD_BYTES, 0);
    // Longer than any record: read it whole as it is, and let the parse judge it.
    if (read === RECORD_BYTES) return readFileSync(fd, "utf8");
    return buffer.toString("utf8", 0, read);
  } finally {
    closeSync(fd);
  }
}

/** This process's PID namespace (`pid:[4026531836]`), or `undefined` when /proc is not its own (or not Linux). */
function ownPidNamespace(): string | undefined {
  try {
    // A /proc mounted for another namespace names this process by another pid, or not at all.
    if (readlinkSync("/proc/self") !== String(process.pid)) return undefined;
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return undefined;
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
