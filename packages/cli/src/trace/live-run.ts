import type { AgentResult, AgentStreamEvent, StoredEvent } from "../core-api.js";
import type { Io } from "../io.js";
import type { Palette } from "../output/colors.js";
import { ProgressLine } from "../output/progress-line.js";
import { LiveView } from "./live-view.js";
import type { RunTracer } from "./run-trace.js";

/** How a live run shows its progress: not at all (`--json`), or on stdout (rewritten in place on a terminal). */
export interface LiveRunOptions {
  readonly io: Io;
  readonly colors: Palette;
  readonly quiet?: boolean;
  /**
   * The run folded so far: empty for a new run, its log for a resumed one or a conversation's
   * next turn; the run's own logged events are folded into it as they come. `null` shows no
   * progress (the text still streams).
   */
  readonly tracer: RunTracer | null;
}

/** What a live run is started with: the listeners for its events and its log, and a signal that Ctrl-C aborts. */
export interface LiveHooks {
  readonly onEvent?: (event: AgentStreamEvent) => void;
  readonly onLogged?: (event: StoredEvent) => void;
  readonly signal: AbortSignal;
}

/**
 * Runs `start` with an `onEvent` listener that shows the run's progress (and, on a terminal, the
 * model's text as it streams), and with a signal that Ctrl-C aborts (the run then ends
 * `cancelled`, its log intact). The progress line is finished whatever happens.
 */
export async function runWithProgress(
  start: (hooks: LiveHooks) => Promise<AgentResult>,
  { io, colors, quiet = false, tracer }: LiveRunOptions,
): Promise<AgentResult> {
  const controller = new AbortController();
  const interrupt = () => controller.abort(new Error("interrupted with Ctrl-C"));
  process.once("SIGINT", interrupt);
  const line = quiet
    ? null
    : new ProgressLine({ write: (text) => io.stdout.write(text), live: io.stdout.isTTY === true }, colors);
  const view =
    line === null || tracer === null
      ? null
      : new LiveView(tracer, {
          progress: (progress) => line.update(progress),
          text: (piece) => line.text(piece),
          attempt: (notice) => line.attempt(notice),
        });
  view?.start();
  const onEvent = view?.onEvent ?? (line === null ? undefined : (event: AgentStreamEvent) => streamText(line, event));
  const listeners = {
    ...(onEvent === undefined ? {} : { onEvent }),
    ...(view === null ? {} : { onLogged: view.onLogged }),
  };
  try {
    return await start({ signal: controller.signal, ...listeners });
  } finally {
    line?.finish();
    process.off("SIGINT", interrupt);
  }
}

function streamText(line: ProgressLine, event: AgentStreamEvent): void {
  if (event.origin !== undefined) return;
  if (event.type === "text-delta") line.text(event.text);
  else if (event.type === "logged" && event.event.type === "model.failed") line.attempt(event.event);
  else if (event.type === "retry-waiting") line.attempt(event);
}
