import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EventLogError } from "./errors.js";
import { parseEventLog, type StoredEvent } from "./event-log.js";
import { checkAppend, type EventStore, type RunSummary, readIntact, summarize } from "./event-store.js";

const RUN_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

/** Whether `runId` can name a JSONL log: 1-128 letters, digits, `_`, `-` or `.`, not starting with `.`. */
export function isRunId(runId: string): boolean {
  return RUN_ID.test(runId);
}

/**
 * An append-only JSONL file per run (`<directory>/<runId>.jsonl`, one event per line). Each append
 * is one `write` of one whole line, so a process killed between appends leaves a valid log; a line
 * torn by a crash in the middle of a write is reported by `read` and dropped by `repair`. One
 * process writes a run at a time.
 */
export class JsonlEventStore implements EventStore {
  readonly directory: string;
  /** Per run: events and bytes this store knows the file holds, so appends need no re-read. */
  readonly #known = new Map<string, { events: number; bytes: number }>();

  constructor(directory: string) {
    this.directory = directory;
    mkdirSync(directory, { recursive: true });
  }

  async append(runId: string, event: StoredEvent): Promise<void> {
    const path = this.#path(runId);
    let known = this.#known.get(runId);
    // A file that changed behind our back (a write that failed half-way, another writer) is read
    // again, so a new line is never glued onto a torn one.
    if (known === undefined || fileSize(path) !== known.bytes) {
      const events = await this.read(runId);
      known = { events: events.length, bytes: fileSize(path) };
    }
    checkAppend(runId, known.events, event);
    const line = `${JSON.stringify(event)}\n`;
    appendFileSync(path, line);
    this.#known.set(runId, { events: known.events + 1, bytes: known.bytes + Buffer.byteLength(line) });
  }

  async read(runId: string): Promise<StoredEvent[]> {
    const path = this.#path(runId);
    if (!existsSync(path)) return [];
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n");
    const complete = lines.pop() === "";
    const values: unknown[] = [];
    for (const [index, line] of lines.entries()) {
      const value = parseLine(line);
      if (value instanceof Error) {
        const last = index === lines.length - 1 && complete;
        throw this.#broken(runId, index, `is not valid JSON (${value.message})`, values, last);
      }
      values.push(value);
    }
    if (!complete) throw this.#broken(runId, lines.length, "is torn: the file ends in the middle of it", values, true);
    return parseEventLog(runId, values);
  }

  async list(): Promise<RunSummary[]> {
    const summaries: RunSummary[] = [];
    for (const file of readdirSync(this.directory).sort()) {
      if (!file.endsWith(".jsonl")) continue;
      const runId = file.slice(0, -".jsonl".length);
      if (!isRunId(runId)) continue; // not a log this store wrote
      const summary = summarize(runId, await readIntact(this, runId));
      if (summary !== null) summaries.push(summary);
    }
    return summaries;
  }

  /** Drops a torn or corrupt last line, keeping every event before it; returns how many lines were dropped (0 or 1). */
  async repair(runId: string): Promise<number> {
    try {
      await this.read(runId);
      return 0;
    } catch (error) {
      if (!(error instanceof EventLogError) || error.position !== error.intact.length) throw error;
      const lines = readFileSync(this.#path(runId), "utf8").split("\n");
      if (lines.length - (lines.at(-1) === "" ? 1 : 0) !== error.position + 1) throw error; // not the last line
      writeFileSync(this.#path(runId), error.intact.map((event) => `${JSON.stringify(event)}\n`).join(""));
      this.#known.delete(runId);
      return 1;
    }
  }

  #path(runId: string): string {
    if (!isRunId(runId)) {
      throw new TypeError(`run id '${runId}' must be 1-128 letters, digits, '_', '-' or '.', not starting with '.'`);
    }
    return join(this.directory, `${runId}.jsonl`);
  }

  #broken(runId: string, index: number, problem: string, before: readonly unknown[], last: boolean): EventLogError {
    const intact = parseEventLog(runId, before);
    const fix = last ? "; JsonlEventStore.repair drops it" : "; lines after it follow, so it needs a look by hand";
    return new EventLogError(
      `run '${runId}': line ${index + 1} of ${this.#path(runId)} ${problem}; the ${intact.length} events before it are intact${fix}`,
      { runId, position: index, intact },
    );
  }
}

function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
