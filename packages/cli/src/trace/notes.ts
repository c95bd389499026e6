import { formatDuration } from "../output/duration.js";
import type { FoldStep } from "./log-fold.js";

/** Something the timeline marks between two events: a pause for a decision, an interruption, a long gap. */
export interface Note {
  readonly kind: "pause" | "interrupted" | "gap" | "waiting" | "unfinished";
  readonly text: string;
}

/** No event for this long, and ten times the usual interval, is marked as a gap. */
const GAP_MS = 60_000;
const LOST = /^ERROR: the result of \S+ was lost/;

/**
 * The notes of a folded log, by the index of the entry they stand before (`entries.length` for the
 * end): where the run paused for a decision and for how long, where a process stopped inside a
 * tool and the run was resumed later, long gaps between events, and why an unfinished log ends.
 */
export function notesOf(
  entries: readonly FoldStep[],
  waiting: readonly { id: string; name: string }[],
): Map<number, Note[]> {
  const notes = new Map<number, Note[]>();
  const add = (index: number, note: Note) => notes.set(index, [...(notes.get(index) ?? []), note]);
  const times = entries.map((entry) => Date.parse(entry.event.at));
  const usual = median(times.slice(1).map((time, index) => time - (times[index] ?? time)));
  const started = new Map<string, number>();
  entries.forEach((entry, index) => {
    const { event } = entry;
    const previous = entries[index - 1];
    const gap = (times[index] ?? 0) - (times[index - 1] ?? times[index] ?? 0);
    if (event.type === "tool.started") started.set(event.callId, index);
    const waited = previous?.waitingFor ?? [];
    if (waited.length > 0) {
      const calls = waited.map((call) => `${call.id} (${call.name})`).join(", ");
      add(index, { kind: "pause", text: `paused ${formatDuration(gap)} for a decision on ${calls}` });
    } else if (event.type === "tool.finished" && LOST.test(event.content)) {
      const name = /^ERROR: the result of (\S+)/.exec(event.content)?.[1] ?? "the tool";
      const since = formatDuration(gap);
      add(index, {
        kind: "interrupted",
        text: `interrupted: the process stopped while ${name} [${event.callId}] ran; resumed ${since} later`,
      });
    } else if (gap > GAP_MS && gap > usual * 10) {
      add(index, {
        kind: "gap",
        text: `no event for ${formatDuration(gap)}: the run was stopped and resumed here, or a call took that long`,
      });
    }
  });
  const last = entries.at(-1);
  if (last !== undefined && last.event.type !== "run.finished" && !last.final) {
    if (waiting.length > 0) {
      const calls = waiting.map((call) => `${call.id} (${call.name})`).join(", ");
      add(entries.length, { kind: "waiting", text: `waiting for a decision on ${calls}` });
    } else {
      add(entries.length, {
        kind: "unfinished",
        text: "the log ends here: the run was interrupted, or it is still going",
      });
    }
  }
  return notes;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
