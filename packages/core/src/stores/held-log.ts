import { closeSync, openSync } from "node:fs";
import type { LineAppender } from "./line-appender.js";

/** Events and bytes in a run's file (`bytes` is -1 when there is no file). */
export interface LogPosition {
  readonly events: number;
  readonly bytes: number;
}

/**
 * A run's log as the holder of its lock keeps it: the file open for appending from the first
 * append until it is closed, and where the file ends. Nobody else writes the file while the lock
 * is held, so an append needs neither a `stat` nor an `open`: one `write` per event.
 */
export class HeldLog {
  readonly path: string;
  /** The token of the lock file this holder took. */
  readonly token: string;
  /** Where the file ends as this holder wrote or read it; `null` when it must be read again (after a failed write). */
  position: LogPosition | null = null;
  #fd: number | null = null;
  /** Settles when the syncs of the appends so far are done: the file is not closed before. */
  #syncing: Promise<void> = Promise.resolve();

  constructor(path: string, token: string) {
    this.path = path;
    this.token = token;
  }

  /**
   * Writes `line` through `appender` at the end of the file, opening it the first time (and
   * creating it, whose directory the appender then syncs as durability asks); `position` is the
   * file's before the line. Resolves once the line is as durable as the appender's durability.
   */
  append(appender: LineAppender, line: Buffer, position: LogPosition): Promise<void> {
    this.position = null; // until the line is written whole
    let created = false;
    if (this.#fd === null) ({ fd: this.#fd, created } = openForAppend(this.path));
    const durable = appender.write(this.#fd, this.path, line, created, false);
    this.position = { events: position.events + 1, bytes: Math.max(position.bytes, 0) + line.length };
    this.#syncing = durable.then(ignore, ignore);
    return durable;
  }

  /**
   * Lets go of the open file, which the path no longer names (the log was replaced by a rename),
   * closing it once its syncs are done; the next append opens the new file, which ends at `position`.
   */
  forget(position: LogPosition): void {
    this.position = position;
    const fd = this.#fd;
    if (fd === null) return;
    this.#fd = null;
    this.#syncing = this.#syncing.then(() => closeSync(fd)).then(ignore, ignore);
  }

  /** Closes the file once every sync of its appends is done; an append after it opens the file again. */
  async close(): Promise<void> {
    for (let syncing = this.#syncing; ; syncing = this.#syncing) {
      await syncing;
      if (syncing === this.#syncing) break; // no append came meanwhile
    }
    if (this.#fd === null) return;
    closeSync(this.#fd);
    this.#fd = null;
  }
}

/** The file open for appending, and whether this open created it (its name is new to the directory). */
function openForAppend(path: string): { fd: number; created: boolean } {
  try {
    return { fd: openSync(path, "ax"), created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return { fd: openSync(path, "a"), created: false };
}

function ignore(): void {}
