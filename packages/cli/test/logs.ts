import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { runHashSeed, type StoredEvent, stampEvent } from "@agentloop/core/store";

type Event = StoredEvent | (StoredEvent & Record<string, unknown>);

/**
 * `events` as the log of run `runId`, numbered from 0 and with the hash chain sealed again: the
 * chain binds every event to its run's id and to the event before it, so a log copied to another
 * id, cut, or changed on purpose by a test is sealed anew and only the change under test differs.
 */
export function sealedFor(runId: string, events: readonly Event[]): StoredEvent[] {
  let previous: string | null = runHashSeed(runId);
  return events.map(({ seq: _seq, at, hash: _hash, ...event }, seq) => {
    const stored = stampEvent(event as Parameters<typeof stampEvent>[0], seq, at, previous);
    previous = stored.hash ?? null;
    return stored;
  });
}

/** The events of a JSONL log file. */
export function readEvents(file: string): Event[] {
  return readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Event);
}

/** Writes `events` to `file` as the sealed log of the run the file is named after (`<runId>.jsonl`). */
export function writeEvents(file: string, events: readonly Event[]): void {
  const sealed = sealedFor(basename(file, ".jsonl"), events);
  writeFileSync(file, `${sealed.map((event) => JSON.stringify(event)).join("\n")}\n`);
}

/** Rewrites a JSONL log through `change`, sealed again for its run. */
export function rewriteLog(file: string, change: (events: Event[]) => Event[]): void {
  writeEvents(file, change(readEvents(file)));
}

/** Moves every event from `from` on later by `ms`, as if the run had stopped there and gone on later. */
export function shiftLog(file: string, from: number, ms: number): void {
  rewriteLog(file, (events) =>
    events.map((event) =>
      event.seq < from ? event : { ...event, at: new Date(Date.parse(event.at) + ms).toISOString() },
    ),
  );
}
