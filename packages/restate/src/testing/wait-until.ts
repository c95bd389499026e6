import { setTimeout as sleep } from "node:timers/promises";

/** How to wait for a condition: what it is (for the error), how long at most, and a check that gives up early. */
export interface WaitOptions {
  readonly what: string;
  /** Milliseconds before giving up (default 20,000: generous for a loaded 2-core machine). */
  readonly timeoutMs?: number;
  /** Returns why waiting is pointless (a process died), or `null` to go on. */
  readonly failIf?: () => string | null;
}

/** Polls `condition` every 20 ms until it holds; rejects after `timeoutMs`, or as soon as `failIf` says why. */
export async function waitUntil<T>(
  condition: () => T | false | null | undefined | Promise<T | false | null | undefined>,
  { what, timeoutMs = 20_000, failIf }: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== false && value !== null && value !== undefined) return value;
    const problem = failIf?.() ?? null;
    if (problem !== null) throw new Error(`gave up waiting for ${what}: ${problem}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}
