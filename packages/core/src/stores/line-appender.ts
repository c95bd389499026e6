import { closeSync, fdatasync, fdatasyncSync, fsync, openSync } from "node:fs";
import { dirname } from "node:path";
import { syncFolder, writeAll } from "./synced-writes.js";

/**
 * When an append is acknowledged: after its own fsync (`event`), after one fsync round shared by
 * every append in flight (`batch`), or once written to the operating system (`none`: survives the
 * process being killed, not an OS crash or a power loss).
 */
export type Durability = "event" | "batch" | "none";

/** The durabilities, strongest first. */
export const DURABILITIES: readonly Durability[] = ["event", "batch", "none"];

interface Waiting {
  readonly path: string;
  readonly fd: number;
  readonly created: boolean;
  /** Whether the appender closes `fd` once it is synced (it opened it), or its caller keeps it open. */
  readonly owned: boolean;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Appends whole lines to files: each line is written at once, with one `write` (looped only if
 * the system writes part of it), then made as durable as `durability` asks before its promise
 * resolves. A file the append created gets its directory synced too, so the new name survives.
 */
export class LineAppender {
  readonly durability: Durability;
  #batch: Waiting[] = [];

  constructor(durability: Durability) {
    this.durability = durability;
  }

  /** Writes `line` at the end of `path` before returning; the promise resolves once it is durable. */
  append(path: string, line: Buffer, created: boolean): Promise<void> {
    return this.write(openSync(path, "a"), path, line, created, true);
  }

  /**
   * Writes `line` to `fd`, a file of `path` open for appending, before returning; the promise
   * resolves once it is durable. `owned`: the appender closes `fd` when done with it, else the
   * caller keeps it and must not close it before the promise settles (a shared sync may still use it).
   */
  write(fd: number, path: string, line: Buffer, created: boolean, owned: boolean): Promise<void> {
    try {
      writeAll(fd, line);
      if (this.durability === "event") {
        fdatasyncSync(fd);
        if (created) syncFolder(dirname(path));
      }
    } catch (error) {
      if (owned) closeSync(fd);
      throw error;
    }
    if (this.durability !== "batch") {
      if (owned) closeSync(fd);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      if (this.#batch.length === 0) setImmediate(() => void this.#flush());
      this.#batch.push({ path, fd, created, owned, resolve, reject });
    });
  }

  /** One fsync per open file and per new file's directory for the whole batch, in parallel; then each append is told. */
  async #flush(): Promise<void> {
    const batch = this.#batch;
    this.#batch = [];
    // By open file, not by path: a log replaced by a rename (prune) is another file under the same name.
    const files = new Map<number, Promise<void>>();
    const directories = new Map<string, Promise<void>>();
    for (const { path, fd, created } of batch) {
      if (!files.has(fd)) files.set(fd, settle(fdatasync, fd));
      const directory = dirname(path);
      if (created && !directories.has(directory)) directories.set(directory, syncDirectoryAsync(directory));
    }
    for (const waiting of batch) {
      const synced = [files.get(waiting.fd), waiting.created ? directories.get(dirname(waiting.path)) : undefined];
      Promise.all(synced).then(waiting.resolve, waiting.reject);
    }
    await Promise.allSettled([...files.values(), ...directories.values()]);
    for (const { fd, owned } of batch) if (owned) closeSync(fd);
  }
}

async function syncDirectoryAsync(directory: string): Promise<void> {
  const fd = openSync(directory, "r");
  try {
    await settle(fsync, fd);
  } finally {
    closeSync(fd);
  }
}

function settle(sync: (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => void, fd: number) {
  return new Promise<void>((resolve, reject) => sync(fd, (error) => (error === null ? resolve() : reject(error))));
}
