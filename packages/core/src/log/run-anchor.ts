import type { RunAnchored, StoredEvent } from "../data/index.js";
import { logFlags } from "../data/index.js";
import { anchorStateOf } from "../decide/index.js";
import { EventLogError } from "./event-log-error.js";
import { replayRun } from "./replay.js";

/** The `run.started` of a log, kept by its anchor when `retain` pruned it; undefined for an empty log. */
export function startedOf(events: readonly StoredEvent[]): Extract<StoredEvent, { type: "run.started" }> | undefined {
  const [first] = events;
  if (first?.type === "run.anchored") return first.started;
  return first?.type === "run.started" ? first : undefined;
}

/**
 * The anchor that stands for the whole of a finished run's log (`run.anchored`, to be stamped at
 * position 0 with the log's last hash), or why it cannot: the log is not finished, has no hash
 * chain (schema 1), or is an anchor alone already. Replays the log: one that does not fit throws.
 */
export function anchorOf(runId: string, events: readonly StoredEvent[]): RunAnchored | string {
  const started = startedOf(events);
  if (started === undefined) return "it has no log";
  if (!logFlags(started.schemaVersion).hashChain) return "its log is of schema 1, which has no hash chain";
  const last = events.at(-1) as StoredEvent;
  if (last.type === "run.anchored") return "it is pruned already";
  if (last.type !== "run.finished") return "it is not finished";
  if (last.hash === undefined)
    throw new EventLogError(`run '${runId}': its last event has no hash`, { runId, position: last.seq });
  const replay = replayRun(events, { runId });
  const [first] = events;
  const before = first?.type === "run.anchored" ? first : null;
  const messaged = events.filter((event) => event.type === "user.messaged").length;
  return {
    type: "run.anchored",
    started,
    events: (before === null ? 0 : before.events - 1) + events.length,
    lastAt: last.at,
    tip: last.hash,
    turns: (before?.turns ?? 1) + messaged,
    outcome: last.outcome,
    state: anchorStateOf(replay.context),
  };
}
