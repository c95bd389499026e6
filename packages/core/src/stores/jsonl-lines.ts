import { isAscii, isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";

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
 * never silently replaced by U+FFFD). Yields nothing for a missing file, and throws a
 * `NotAFileError` for anything but a regular file (a FIFO, a device, a directory). The file must
 * not change while it is read (a writer appends only under the run's lock, and a reader may see a
 * torn end).
 */
export function* readLines(path: string): Generator<Line> {
  const fd = openRegular(path);
  if (fd === undefined) return;
  try {
    const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, fstatSync(fd).size + 1)));
    // Long lines are read into one buffer, grown when needed: their text is a copy of it.
    let long = Buffer.alloc(0);
    let index = 0;
    let lineStart = 0; // where the current line starts in the file
    let position = 0; // where `chunk` starts in the file
    for (
      let read = readSync(fd, chunk, 0, chunk.length, 0);
      read > 0;
      read = readSync(fd, chunk, 0, chunk.length, position)
    ) {
      const view = chunk.subarray(0, read);
      for (let newline = view.indexOf(10); newline !== -1; newline = view.indexOf(10, newline + 1)) {
        const end = position + newline;
        // A line that began in an earlier chunk is read again whole, into the buffer for long lines.
        if (lineStart < position && long.length < end - lineStart) long = Buffer.allocUnsafe(end - lineStart);
        const bytes =
          lineStart >= position ? view.subarray(lineStart - position, newline) : readRange(fd, long, lineStart, end);
        yield { index: index++, offset: lineStart, bytes: bytes.length, text: decode(bytes), complete: true };
        lineStart = end + 1;
      }
      position += read;
    }
    if (lineStart < position) {
      const bytes = readRange(fd, Buffer.allocUnsafe(position - lineStart), lineStart, position);
      yield { index, offset: lineStart, bytes: bytes.length, text: decode(bytes), complete: false };
    }
  } finally {
    closeSync(fd);
  }
}

/** A log path that names something other than a regular file: it is never read (a FIFO would block, `/dev/zero` never end). */
export class NotAFileError extends Error {
  override readonly name = "NotAFileError";
  /** BSD's errno for an inappropriate file type, so that callers who skip unreadable files skip this one too. */
  readonly code = "EFTYPE";
  /** What the path names instead, as "a FIFO". */
  readonly kind: string;

  constructor(path: string, kind: string) {
    super(`${path} is ${kind}, not a regular file`);
    this.kind = kind;
  }
}

/** Opens `path` for reading, or `undefined` when there is none; refuses, unread, anything but a regular file. */
function openRegular(path: string): number | undefined {
  // A new run's first read finds no file: a stat told to throw nothing for it costs a fraction of a failed open's error.
  if (statSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
  let fd: number;
  try {
    // Non-blocking, so that opening a FIFO returns at once (a regular file reads as ever).
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const stats = fstatSync(fd);
  if (stats.isFile()) return fd;
  closeSync(fd);
  throw new NotAFileError(path, kindOf(stats));
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isDirectory()) return "a directory";
  if (stats.isSocket()) return "a socket";
  return "something else";
}

/** The file's bytes from `start` to `end`, read into the start of `buffer`. */
function readRange(fd: number, buffer: Buffer, start: number, end: number): Buffer {
  const bytes = buffer.subarray(0, end - start);
  for (let done = 0; done < bytes.length; ) {
    const read = readSync(fd, bytes, done, bytes.length - done, start + done);
    if (read === 0) throw new Error(`the file ended while its line at byte ${start} was read: it changed meanwhile`);
    done += read;
  }
  return bytes;
}

function decode(bytes: Buffer): Line["text"] {
  if (!isUtf8(bytes)) return { problem: "is not valid UTF-8" };
  try {
    // Plain ASCII (most logs) is copied as it is, which is quicker than decoding it.
    return bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
  } catch (error) {
    // Longer than the longest string this JavaScript engine can make: no writer of ours makes one.
    return { problem: `cannot be read as one string (${bytes.length} bytes: ${(error as Error).message})` };
  }
}
