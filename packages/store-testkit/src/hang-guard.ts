import { availableParallelism, loadavg } from "node:os";

/** The most a limit grows: beyond this a wait is a hang whatever else the machine is doing. */
const MOST = 10;

/**
 * A test's time limit for `ms` of work on a machine with nothing else to do, grown with the machine's
 * load at the moment it is asked.
 *
 * A time limit in a test guards against a hang; it measures nothing (speed is measured in the bench
 * package). On a machine that runs other work, every process, server and browser a test waits for
 * takes as many times longer as there are runnable processes per core: a limit fixed for a quiet
 * machine fails a correct test on a busy one. So the limit is `ms` times the load average per core,
 * between 1 and 10 times: a quiet machine keeps `ms`, a hang is still caught.
 */
export function hangGuard(ms: number): number {
  const [lastMinute = 0] = loadavg();
  const busy = lastMinute / availableParallelism();
  return Math.round(ms * Math.min(MOST, Math.max(1, busy)));
}
