import {
  closeSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
} from "node:fs";
import { join } from "node:path";
import {
  type BlobSource,
  checkAppend,
  checkPrune,
  EventLogError,
  type EventStore,
  loggedEvent,
  parseEventLog,
  type RunLock,
  type RunSummary,
  readIntact,
  type SpendLedger,
  type StoredEvent,
  summarize,
} from "../log/index.js";
import { blobFolderSource, writeBlobs } from "./blob-folder.js";
import { HeldLog, type LogPosition } from "./held-log.js";
import { NotAFileError } from "./jsonl-lines.js";
import { type Scan, scanLog } from "./jsonl-scan.js";
import { jsonlSpendLedger } from "./jsonl-spending.js";
import { DURABILITIES, type Durability, LineAppender } from "./line-appender.js";
import { type LockRecord, readLockFile, runLockedError, sweepLockFile, tryLockFile, unlockFile } from "./lock-file.js";
import { syncFolder, writeWholeFile } from "./synced-writes.js";

export { DURABILITIES, type Durability } from "./line-appender.js";
export { NotAFileError };

const RUN_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

/** Whether `runId` can name a JSONL log: 1-128 letters, digits, `_`, `-` or `.`, not starting with `.`. */
export function isRunId(runId: string): boolean {
  return RUN_ID.test(runId);
}

/** Options of `JsonlEventStore`. */
export interface JsonlEventStoreOptions {
  /**
   * When an append resolves: after an fsync of its own (`event`), after one fsync shared by the
   * appends in flight (`batch`, the default), or once the operating system has it (`none`: it
   * survives the process being killed, but not an OS crash or a power loss).
   */
  readonly durability?: Durability;
}

/** A file named like a log (`<runId>.jsonl`) that `list` left out, and why. */
export interface SkippedLog {
  readonly path: string;
  /** Why, in words: "it is a FIFO, not a regular file", or the system's error. */
  readonly reason: string;
}

/** Options of `JsonlEventStore.list`. */
export interface JsonlListOptions {
  /** Told of each file named like a log that is left out, as it is. */
  readonly onSkip?: (skipped: SkippedLog) => void;
}

/**
 * An append-only JSONL file per run (`<directory>/<runId>.jsonl`, one event per line). Each append
 * is one `write` of one whole line, made as durable as `durability` asks before it resolves, so a
 * process killed between appends leaves a valid log; a line torn by a crash in the middle of a
 * write is reported by `read` and dropped by `repair`. One writer per run: a lock file beside the
 * log (`<runId>.jsonl.lock`) is held by `acquire` until released, or by an `append` or `repair`
 * for its own length; a lock whose process died on this host is taken over, one on another host
 * is refused. A run held by `acquire` keeps its file open until released: its appends are a
 * `write` each, with no `open` or `stat`. Files are read line by line, so a log may be larger than
 * the longest string. The bytes of an image or file part are kept once per run in
 * `<directory>/<runId>.blobs/<sha256>`, written (whole, by a rename) before the line that refers
 * to them; `read` checks them against their hash.
 */
export class JsonlEventStore implements EventStore {
  readonly directory: string;
  readonly durability: Durability;
  /** Per run not held: events and bytes this store knows the file holds, so appends need no re-read. */
  readonly #known = new Map<string, LogPosition>();
  /** Runs this object holds the lock of, each with its file as the holder keeps it. */
  readonly #held = new Map<string, HeldLog>();
  readonly #appender: LineAppender;
  /** Owners' spending, for spending ceilings: a small file per owner in the folder (see `jsonlSpendLedger`). */
  readonly spending: SpendLedger;

  constructor(directory: string, options: JsonlEventStoreOptions = {}) {
    const durability = options.durability ?? "batch";
    if (!DURABILITIES.includes(durability)) {
      throw new RangeError(`durability must be one of ${DURABILITIES.join(", ")}; got ${String(durability)}`);
    }
    this.directory = directory;
    this.durability = durability;
    this.#appender = new LineAppender(durability);
    mkdirSync(directory, { recursive: true });
    this.spending = jsonlSpendLedger(directory);
  }

  async acquire(runId: string): Promise<RunLock> {
    const lockPath = this.#lockPath(runId);
    if (this.#held.has(runId)) throw this.#locked(runId, lockPath, readLockFile(lockPath) ?? null);
    const held = new HeldLog(this.#path(runId), this.#lock(runId));
    this.#held.set(runId, held);
    this.#known.delete(runId);
    return {
      runId,
      release: async () => {
        if (this.#held.get(runId) !== held) return;
        await held.close(); // the syncs of its appends are done first
        if (this.#held.get(runId) !== held) return; // released meanwhile by another call
        this.#held.delete(runId);
        if (held.position !== null) this.#known.set(runId, held.position);
        unlockFile(lockPath, held.token);
      },
    };
  }

  async append(runId: string, event: StoredEvent): Promise<void> {
    const held = this.#held.get(runId);
    if (held !== undefined) {
      // Nobody else writes the file while the lock is held: where it ends is where this holder left it.
      const position = held.position ?? this.#position(runId, held.path, undefined);
      return held.append(this.#appender, this.#line(runId, position.events, event), position);
    }
    const path = this.#path(runId);
    await this.#underLock(runId, () => {
      // Under the lock: the position is the file's as it is now, never a size taken before.
      const { events, bytes } = this.#position(runId, path, this.#known.get(runId));
      const line = this.#line(runId, events, event);
      const durable = this.#appender.append(path, line, bytes < 0);
      this.#known.set(runId, { events: events + 1, bytes: Math.max(bytes, 0) + line.length });
      return durable;
    });
  }

  /** The event's line, once it is checked to extend a log of `events` events and its blobs are written. */
  #line(runId: string, events: number, event: StoredEvent): Buffer {
    checkAppend(runId, events, event);
    const logged = loggedEvent(event);
    if (logged.blobs.size > 0) writeBlobs(this.#blobFolder(runId), logged.blobs, this.durability !== "none");
    return Buffer.from(`${JSON.stringify(logged.event)}\n`);
  }

  async read(runId: string): Promise<StoredEvent[]> {
    const path = this.#path(runId);
    const scan = scanLog(path);
    if (scan.broken !== null) throw this.#broken(runId, scan.broken, scan.values);
    const events = parseEventLog(runId, scan.values, this.#blobs(runId));
    // Only a holder of the lock knows nobody changes the file after this read.
    const held = this.#held.get(runId);
    if (held !== undefined) held.position = { events: events.length, bytes: scan.bytes };
    return events;
  }

  /**
   * Every run with a `run.started`, by run id; a broken run is summarized from its intact events.
   * Anything named `*.jsonl` that is not a regular file (a FIFO, a device, a directory) is left
   * out unread, as is a file that cannot be read at all; `onSkip` is told of each.
   */
  async list(options: JsonlListOptions = {}): Promise<RunSummary[]> {
    const summaries: RunSummary[] = [];
    for (const name of readdirSync(this.directory).sort()) {
      const runId = name.slice(0, -".jsonl".length);
      if (!name.endsWith(".jsonl") || !isRunId(runId)) continue; // not a log this store wrote
      try {
        const summary = summarize(runId, await readIntact(this, runId));
        if (summary !== null) summaries.push(summary);
      } catch (error) {
        // It spoils only itself.
        if (typeof (error as NodeJS.ErrnoException).code !== "string") throw error;
        const reason =
          error instanceof NotAFileError ? `it is ${error.kind}, not a regular file` : (error as Error).message;
        options.onSkip?.({ path: join(this.directory, name), reason });
      }
    }
    return summaries;
  }

  /**
   * Replaces the run's log by its anchor: the anchor's line is written to a file of its own
   * (`.<runId>.jsonl.prune`, synced unless `durability` is `none`) and renamed over the log, so a
   * crash leaves the old log or the new one. Under the run's lock, as an append.
   */
  async prune(runId: string, anchor: StoredEvent, length: number): Promise<void> {
    const path = this.#path(runId);
    const held = this.#held.get(runId);
    await this.#underLock(runId, () => {
      const position =
        held?.position ?? this.#position(runId, path, held === undefined ? this.#known.get(runId) : undefined);
      checkPrune(runId, position.events, length, anchor);
      const logged = loggedEvent(anchor);
      const durable = this.durability !== "none";
      writeBlobs(this.#blobFolder(runId), logged.blobs, durable);
      const line = Buffer.from(`${JSON.stringify(logged.event)}\n`);
      const temporary = join(this.directory, `.${runId}.jsonl.prune`);
      writeWholeFile(temporary, line, "w", durable);
      renameSync(temporary, path);
      if (durable) syncFolder(this.directory);
      const pruned = { events: 1, bytes: line.length };
      if (held === undefined) this.#known.set(runId, pruned);
      else held.forget(pruned); // the file it holds open is the old log
    });
  }

  /**
   * Drops a torn or corrupt last line, keeping every event before it; returns how many lines were
   * dropped (0 or 1). The log is cut in place at the end of its last intact line and synced: the
   * bytes kept are never rewritten, so a crash leaves the old log or the repaired one, and no
   * space is needed but a block for the run's lock file (a full disk is an `EventLogError` saying so).
   */
  async repair(runId: string): Promise<number> {
    const path = this.#path(runId);
    try {
      return await this.#underLock(runId, () => this.#repairHeld(runId, path));
    } catch (error) {
      throw this.#noSpace(runId, path, error);
    }
  }

  /** `repair`'s work, under the run's lock. */
  #repairHeld(runId: string, path: string): number {
    // After a crash: what a process killed while it took this run's lock (or an older repair's copy) left goes too.
    sweepLockFile(this.#lockPath(runId));
    rmSync(join(this.directory, `.${runId}.jsonl.repair`), { force: true });
    const scan = scanLog(path);
    let cut: number;
    if (scan.broken !== null) {
      if (!scan.broken.last) throw this.#broken(runId, scan.broken, scan.values);
      parseEventLog(runId, scan.values, this.#blobs(runId)); // a problem before the broken line is reported as read reports it
      cut = scan.broken.offset;
    } else {
      try {
        parseEventLog(runId, scan.values, this.#blobs(runId));
        return 0;
      } catch (error) {
        if (!(error instanceof EventLogError) || error.position !== scan.values.length - 1) throw error;
        cut = scan.lastOffset;
      }
    }
    cutInPlace(path, cut);
    this.#known.delete(runId);
    const held = this.#held.get(runId);
    if (held !== undefined) held.position = null; // its open file is the same, cut: read where it ends again
    return 1;
  }

  /** A full disk's error as an `EventLogError` saying how much space repair needs; any other error as it is. */
  #noSpace(runId: string, path: string, error: unknown): unknown {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOSPC" && code !== "EDQUOT") return error;
    const block = statfsSync(this.directory).bsize;
    return new EventLogError(
      `run '${runId}': cannot repair ${path}: its file system is full, and repair needs ${block} bytes free there for the run's lock file (the log is cut in place and needs none); free that much and repair again`,
      { runId, position: 0, cause: error },
    );
  }

  /** Runs `work` holding the run's lock: the one this object acquired, or one taken for `work` alone. */
  async #underLock<T>(runId: string, work: () => T | Promise<T>): Promise<T> {
    if (this.#held.has(runId)) return work();
    const token = this.#lock(runId);
    try {
      return await work();
    } finally {
      unlockFile(this.#lockPath(runId), token);
    }
  }

  /** Takes the run's lock file, or throws the `EventLogError` that names its holder. */
  #lock(runId: string): string {
    const lockPath = this.#lockPath(runId);
    const attempt = tryLockFile(lockPath);
    if ("token" in attempt) return attempt.token;
    throw this.#locked(runId, lockPath, attempt.owner);
  }

  #locked(runId: string, lockPath: string, owner: LockRecord | null): EventLogError {
    return runLockedError(runId, owner, `lock file ${lockPath}`, `remove the lock file by hand (rm '${lockPath}')`);
  }

  /** Events and bytes in the run's file now (`bytes` is -1 when there is no file); re-read when the size is not the `known` one. */
  #position(runId: string, path: string, known: LogPosition | undefined): LogPosition {
    const size = sizeOf(path);
    if (known !== undefined && known.bytes === size) return known;
    if (size < 0) return { events: 0, bytes: -1 };
    const scan = scanLog(path);
    if (scan.broken !== null) throw this.#broken(runId, scan.broken, scan.values);
    return { events: parseEventLog(runId, scan.values, this.#blobs(runId)).length, bytes: scan.bytes };
  }

  #path(runId: string): string {
    if (!isRunId(runId)) {
      throw new TypeError(`run id '${runId}' must be 1-128 letters, digits, '_', '-' or '.', not starting with '.'`);
    }
    return join(this.directory, `${runId}.jsonl`);
  }

  /** The folder of the run's blobs, beside its log. */
  #blobFolder(runId: string): string {
    return join(this.directory, `${runId}.blobs`);
  }

  #blobs(runId: string): BlobSource {
    return blobFolderSource(this.#blobFolder(runId));
  }

  #lockPath(runId: string): string {
    return `${this.#path(runId)}.lock`;
  }

  #broken(runId: string, broken: NonNullable<Scan["broken"]>, before: readonly unknown[]): EventLogError {
    const intact = parseEventLog(runId, before, this.#blobs(runId));
    const fix = broken.last
      ? "; JsonlEventStore.repair drops it"
      : "; lines after it follow, so it needs a look by hand";
    return new EventLogError(
      `run '${runId}': line ${broken.index + 1} of ${this.#path(runId)} ${broken.problem}; the ${intact.length} events before it are intact${fix}`,
      { runId, position: broken.index, intact },
    );
  }
}

/** Cuts `path` to its first `length` bytes and syncs it; the bytes before `length` are not touched. */
function cutInPlace(path: string, length: number): void {
  const fd = openSync(path, "r+");
  try {
    ftruncateSync(fd, length);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return -1;
    throw error;
  }
}
