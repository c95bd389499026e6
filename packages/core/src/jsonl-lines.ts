import { isUtf8 } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** One line of a JSONL file, without its newline. */
export interface Line {
  /** 0-based. */
  readonly index: number;
  /** Where the line starts in the file, in bytes. */
  readonly offset: number;
  /** Its length in bytes, without the newline. */
  readonly bytes: number;
  /** The line's text, or why it cannot be read as text. */
  readonly text: string | { readonly problem: string };
  /** Whether a newline ends it: a last line without one was torn by a crash in the middle of a write. */
  readonly complete: boolean;
}

const CHUNK = 1 << 20;

/**
 * The lines of the file at `path`, read in chunks of at most 1 MiB, so a file larger than any one
 * string can be read; each line is decoded strictly, as UTF-8 (a line that is not is reported,
 * never silently replaced by U+FFFD). Yields nothing for a missing file.
 */
export function* readLines(path: string): Generator<Line> {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  try {
    const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, fstatSync(fd).size + 1)));
    let pending: Buffer[] = [];
    let index = 0;
    let offset = 0;
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) {
      const view = chunk.subarray(0, read);
      let start = 0;
      for (let newline = view.indexOf(10); newline !== -1; newline = view.indexOf(10, start)) {
        const bytes = join(pending, view.subarray(start, newline));
        yield { index: index++, offset, bytes: bytes.length, text: decode(bytes), complete: true };
        offset += bytes.length + 1;
        pending = [];
        start = newline + 1;
      }
      // The chunk is read into again: keep a copy of the line's start.
      if (start < read) pending.push(Buffer.from(view.subarray(start)));
    }
    if (pending.length > 0) {
      const bytes = join(pending, Buffer.alloc(0));
      yield { index, offset, bytes: bytes.length, text: decode(bytes), complete: false };
    }
  } finally {
    closeSync(fd);
  }
}

function join(pending: readonly Buffer[], last: Buffer): Buffer {
  return pending.length === 0 ? last : Buffer.concat([...pending, last]);
}

function decode(bytes: Buffer): Line["text"] {
  if (!isUtf8(bytes)) return { problem: "is not valid UTF-8" };
  try {
    return bytes.toString("utf8");
  } catch (error) {
    // Longer than the longest string this JavaScript engine can make: no writer of ours makes one.
    return { problem: `cannot be read as one string (${bytes.length} bytes: ${(error as Error).message})` };
  }
}
