import type { AgentResult, EventStore } from "../core-api.js";
import type { Io } from "../io.js";
import type { Palette } from "../output/colors.js";
import { ProgressLine } from "../output/progress-line.js";
import { progressTap } from "./progress-tap.js";
import type { RunTracer } from "./run-trace.js";

/** How a live run shows its progress: not at all (`--json`), or on stdout (rewritten in place on a terminal). */
export interface LiveRunOptions {
  readonly io: Io;
  readonly colors: Palette;
  readonly quiet?: boolean;
  /** Folds the run's events as they are logged (for a resumed run: its log so far already folded). */
  readonly tracer?: RunTracer;
}

/**
 * Runs `start` with a store that reports progress, and with a signal that Ctrl-C aborts (the run
 * then ends `cancelled`, its log intact). The progress line is finished whatever happens.
 */
export async function runWithProgress(
  store: EventStore,
  start: (store: EventStore, signal: AbortSignal) => Promise<AgentResult>,
  { io, colors, quiet = false, tracer }: LiveRunOptions,
): Promise<AgentResult> {
  const controller = new AbortController();
  const interrupt = () => controller.abort(new Error("interrupted with Ctrl-C"));
  process.once("SIGINT", interrupt);
  const line = quiet
    ? null
    : new ProgressLine({ write: (text) => io.stdout.write(text), live: io.stdout.isTTY === true }, colors);
  const tapped = line === null ? store : progressTap(store, (progress) => line.update(progress), tracer);
  try {
    return await start(tapped, controller.signal);
  } finally {
    line?.finish();
    process.off("SIGINT", interrupt);
  }
}
