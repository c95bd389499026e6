import { EventLogError, type Message, shownAtStep } from "@agentloop/core";
import { RunFold } from "@agentloop/core/machine";
import type { StoredEvent } from "@agentloop/core/store";
import type { Context } from "@opentelemetry/api";
import { LoggedSpans } from "./logged-spans.js";
import type { SpanSettings, TurnSpans } from "./turn-spans.js";

/**
 * Sends the spans of a logged run, each at the time its events were logged: per turn an
 * `invoke_agent` span from `run.started` (or `user.messaged`) to `run.finished`; per model call
 * (a reply or a failed attempt) and per summary a `chat` span from the event before it (when the
 * call was made) to `model.replied`, `model.failed` or `context.compacted`; per call run an
 * `execute_tool` span from `tool.started` to `tool.finished`; per guardrail a span from the
 * start of its stage to its `guardrail.checked`; per backoff a span from the failure to
 * `retry.waited`. The log is folded first, so a log that does not fit its run throws
 * `EventLogError` and sends nothing.
 */
export function spansFromLog(
  settings: SpanSettings,
  runId: string,
  events: readonly StoredEvent[],
  parent: Context,
  childLog?: ChildLog,
): void {
  if (typeof runId !== "string" || runId === "") {
    throw new TypeError(`runId must be the run's id, a non-empty string; got ${String(runId)}`);
  }
  if (!Array.isArray(events)) throw new TypeError(`events must be the run's logged events, an array`);
  const times = events.map((event, position) => timeOf(runId, event, position));
  const shown = modelInputs(runId, events, settings.captureContent);
  const child = (turn: TurnSpans, callId: string, toolName: string, childRunId: string): void => {
    const logged = childLog?.(childRunId);
    if (logged === undefined) return;
    // The child's model is not in its log, so its spans name none.
    const none = { model: undefined, maxTokens: undefined, fallbackModels: [], summarizerModel: undefined };
    const named = { ...settings, ...none, agentName: toolName };
    spansFromLog(named, childRunId, logged, turn.toolContext(callId), childLog);
  };
  const log = new LoggedSpans(settings, { kind: "log", runId, parent, child });
  for (const [position, event] of events.entries()) log.take(event, times[position] as Date, shown[position]);
  log.finish();
}

/**
 * Folds the whole log with core's `RunFold` (its checks, so that a log that does not fit throws
 * before any span is sent) and keeps, when content is recorded, for each model call
 * (`model.replied`, `model.failed`) the messages the model was shown: the list as it stood, or
 * after a compaction the view it left, which core's `shownAtStep` reads from the log.
 */
function modelInputs(
  runId: string,
  events: readonly StoredEvent[],
  content: boolean,
): (readonly Message[] | undefined)[] {
  if (events.length === 0) {
    throw new EventLogError(`run '${runId}': event 0 (missing) must be 'run.started'`, {
      runId,
      position: 0,
      intact: [],
    });
  }
  const fold = new RunFold({ runId });
  let compacted = false;
  try {
    return events.map((event) => {
      const called = content && fold.length > 0 && (event.type === "model.replied" || event.type === "model.failed");
      // The fold's position has the whole list; the view is read again from the log only once a
      // compaction made it differ (each such read folds the log up to the call).
      const shown = !called
        ? undefined
        : compacted
          ? shownAtStep(events, fold.position.steps + 1, runId)
          : fold.position.messages;
      fold.apply(event);
      compacted ||= event.type === "context.compacted";
      return shown ?? undefined;
    });
  } finally {
    fold.stop();
  }
}

/** The log of a child run (an agent tool's call), by its run id; undefined when it is not at hand. */
export type ChildLog = (childRunId: string) => readonly StoredEvent[] | undefined;

function timeOf(runId: string, event: StoredEvent, position: number): Date {
  const at = new Date(typeof event?.at === "string" ? event.at : Number.NaN);
  if (Number.isNaN(at.getTime())) {
    throw new RangeError(`run '${runId}': event ${position} has no valid time: 'at' must be an ISO 8601 time`);
  }
  return at;
}
