import type { RunSet } from "./run-set.js";

/** Events folded per turn of the event loop: small enough that a request waits a few milliseconds at most. */
const SLICE = 200;
/** Milliseconds between looks for work once every run is folded. */
const IDLE_MS = 250;

/**
 * Folds the runs of `runs` through the machine while the studio has nothing else to do, a slice at
 * a time between requests, so that a run's page opens without folding its whole log first and the
 * studio answers while it folds. Returns the function that stops it.
 */
export function foldWhileIdle(runs: RunSet): () => void {
  let timer: NodeJS.Timeout | null = null;
  let immediate: NodeJS.Immediate | null = null;
  let stopped = false;
  const step = () => {
    if (stopped) return;
    const pending = runs.all().find((run) => !run.folded);
    if (pending === undefined) {
      timer = setTimeout(step, IDLE_MS).unref();
      return;
    }
    pending.foldSome(SLICE);
    immediate = setImmediate(step).unref();
  };
  step();
  return () => {
    stopped = true;
    if (timer !== null) clearTimeout(timer);
    if (immediate !== null) clearImmediate(immediate);
  };
}
