import {
  closeSync,
  constants,
  type FSWatcher,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  watch,
} from "node:fs";
import { join } from "node:path";
import { messageOf } from "../../cli-error.js";
import { type BlobSource, isRunId } from "../../core-api.js";
import { RunSet, type StoreWatcher } from "./run-set.js";

/** Where the reading of one log stands: the bytes read, and a last line not yet ended by a newline. */
interface Tail {
  offset: number;
  partial: Buffer;
}

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/**
 * Watches a directory of `<runId>.jsonl` logs: `fs.watch` on the directory says which file
 * changed, and only the bytes appended since the kept offset are read, split into lines and folded.
 * A file that became shorter (a repaired torn line) is read again from its start. Files are opened
 * with `O_NOFOLLOW`, so a link out of the store is refused, never followed.
 */
export class JsonlWatcher implements StoreWatcher {
  readonly runs = new RunSet((runId) => blobFolder(join(this.#directory, `${runId}.blobs`)));
  readonly #directory: string;
  readonly #tails = new Map<string, Tail>();
  readonly #pending = new Set<string>();
  #watcher: FSWatcher | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(directory: string) {
    this.#directory = directory;
  }

  async start(): Promise<void> {
    this.#watcher = watch(this.#directory, (_type, name) => {
      const runId = typeof name === "string" ? runIdOf(name) : null;
      if (runId !== null) this.#schedule(runId);
    });
    this.#watcher.on("error", () => this.poke());
    this.poke();
  }

  poke(): void {
    for (const name of readdirSync(this.#directory)) {
      const runId = runIdOf(name);
      if (runId !== null) this.#read(runId);
    }
  }

  close(): void {
    this.#watcher?.close();
    if (this.#timer !== null) clearTimeout(this.#timer);
  }

  #schedule(runId: string): void {
    this.#pending.add(runId);
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      const runIds = [...this.#pending];
      this.#pending.clear();
      for (const id of runIds) this.#read(id);
    }, 15);
  }

  /** Reads what was appended to one log since the last look, and tells the listeners when anything was. */
  #read(runId: string): void {
    const path = join(this.#directory, `${runId}.jsonl`);
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      this.runs.ensure(runId).refuse(`cannot read ${runId}.jsonl: ${messageOf(error)}`);
      this.runs.changed(runId);
      return;
    }
    try {
      if (this.#readFrom(fd, runId)) this.runs.changed(runId);
    } finally {
      closeSync(fd);
    }
  }

  #readFrom(fd: number, runId: string): boolean {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      this.runs.ensure(runId).refuse(`${runId}.jsonl is not a regular file`);
      return true;
    }
    let tail = this.#tails.get(runId);
    if (tail === undefined || stat.size < tail.offset) {
      tail = { offset: 0, partial: Buffer.alloc(0) };
      this.#tails.set(runId, tail);
      this.runs.reset(runId);
    }
    if (stat.size === tail.offset) return false;
    const run = this.runs.ensure(runId);
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, stat.size - tail.offset));
    while (tail.offset < stat.size) {
      const read = readSync(fd, buffer, 0, Math.min(buffer.length, stat.size - tail.offset), tail.offset);
      if (read === 0) break;
      tail.offset += read;
      let data = Buffer.concat([tail.partial, buffer.subarray(0, read)]);
      let end = data.indexOf(NEWLINE);
      while (end >= 0) {
        addLine(run, data.subarray(0, end));
        data = data.subarray(end + 1);
        end = data.indexOf(NEWLINE);
      }
      tail.partial = Buffer.from(data);
    }
    return true;
  }
}

function addLine(run: ReturnType<RunSet["ensure"]>, line: Buffer): void {
  if (run.refused !== null) return;
  let value: unknown;
  try {
    value = JSON.parse(line.toString("utf8"));
  } catch {
    run.refuse(`run '${run.runId}': event ${run.length} is not valid JSON`);
    return;
  }
  run.add(value);
}

function runIdOf(name: string): string | null {
  if (!name.endsWith(".jsonl")) return null;
  const runId = name.slice(0, -".jsonl".length);
  return isRunId(runId) ? runId : null;
}

/** A run's blobs as the JSONL store keeps them: a file per blob, named by its SHA-256, opened without following a link. */
function blobFolder(folder: string): BlobSource {
  return {
    where: `the folder ${folder}`,
    read(sha256) {
      let fd: number;
      try {
        fd = openSync(join(folder, sha256), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
      try {
        return readFileSync(fd);
      } finally {
        closeSync(fd);
      }
    },
  };
}
