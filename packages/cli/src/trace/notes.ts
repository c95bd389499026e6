import { logFlags, startedOf, toolFailureOf } from "../core-api.js";
import { formatDuration } from "../output/duration.js";
import type { FoldStep } from "./log-fold.js";

/** Something the timeline marks between two events: a conversation's next turn, a compaction boundary, a pause for a decision, an interruption, a long gap. */
export interface Note {
  readonly kind: "turn" | "compacted" | "pause" | "interrupted" | "gap" | "waiting" | "unfinished";
  readonly text: string;
}

/** No event for this long, and ten times the usual interval, is marked as a gap. */
const GAP_MS = 60_000;
const AWAITING = ".awaitingDecision";

/**
 * The notes of a folded log, by the index of the entry they stand before (`entries.length` for the
 * end): where a conversation's next turn begins, where the run paused for a decision (only
 * decisions were awaited) and for how long, where a process stopped inside a tool and the run was
 * resumed later, long gaps between events, and why an unfinished log ends.
 */
export function notesOf(
  entries: readonly FoldStep[],
  waiting: readonly { id: string; name: string }[],
): Map<number, Note[]> {
  const notes = new Map<number, Note[]>();
  const add = (index: number, note: Note) => notes.set(index, [...(notes.get(index) ?? []), note]);
  const times = entries.map((entry) => Date.parse(entry.event.at));
  const usual = median(times.slice(1).map((time, index) => time - (times[index] ?? time)));
  // Where the last stretch of the run before a resume ended: lost results that follow one another
  // all come from the same resume.
  let beforeResume = 0;
  const first = entries[0]?.event;
  const flags = logFlags(first === undefined ? 1 : (startedOf([first])?.schemaVersion ?? 1));
  const names = new Map<string, string>();
  entries.forEach((entry, index) => {
    const { event } = entry;
    const previous = entries[index - 1];
    const gap = (times[index] ?? 0) - (times[index - 1] ?? times[index] ?? 0);
    if (event.type === "tool.started") names.set(event.callId, event.name);
    const lost = event.type === "tool.finished" && toolFailureOf(event, flags) === "lost" ? event.callId : null;
    if (lost === null) beforeResume = index;
    const sinceStop = (times[index] ?? 0) - (times[beforeResume] ?? times[index] ?? 0);
    if (event.type === "user.messaged") {
      add(index, { kind: "turn", text: `turn ${entry.turn}: the conversation goes on with the user's next message` });
    } else if (event.type === "context.compacted") {
      const shown = event.summary === undefined ? "" : "a summary, then ";
      const text = `compaction: from step ${event.step} the model is shown the task, ${shown}the list from message ${event.keptFrom} on`;
      add(index, { kind: "compacted", text });
    } else if (event.type === "approval.decided" && previous?.state.endsWith(AWAITING) === true) {
      add(index, {
        kind: "pause",
        text: `paused ${formatDuration(gap)} for a decision on ${callList(previous.waitingFor)}`,
      });
    } else if (lost !== null) {
      add(index, {
        kind: "interrupted",
        text: `interrupted: the process stopped while ${names.get(lost) ?? "a tool"} [${lost}] ran; resumed ${formatDuration(sinceStop)} later`,
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
    if (waiting.length > 0 && last.state.endsWith(AWAITING)) {
      add(entries.length, { kind: "waiting", text: `waiting for a decision on ${callList(waiting)}` });
    } else {
      add(entries.length, {
        kind: "unfinished",
        text: "the log ends here: the run was interrupted, or it is still going",
      });
    }
  }
  return notes;
}

function callList(calls: readonly { id: string; name: string }[]): string {
  return calls.map((call) => `${call.id} (${call.name})`).join(", ");
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The notes after the last event, where a log that ends while a child run waits says so rather than "interrupted". */
export function endNotes(
  notes: readonly Note[] | undefined,
  waiting: readonly { id: string; name: string }[],
  questions: readonly { id: string }[] = [],
): Note[] {
  if (waiting.length === 0 && questions.length === 0) return [...(notes ?? [])];
  const decisions =
    waiting.length === 0 ? [] : [`a decision on ${waiting.map((call) => `${call.id} (${call.name})`).join(", ")}`];
  const answers = questions.length === 0 ? [] : [`an answer to ${questions.map((question) => question.id).join(", ")}`];
  const text = `waiting for ${[...decisions, ...answers].join(" and ")}`;
  return (notes ?? []).map((note) => (note.kind === "unfinished" ? { kind: "waiting", text } : note));
}
