import type { StoredEvent } from "../data/index.js";

/** An append waiting for its group's transaction: told once that is committed, or why it was refused. */
export interface WaitingAppend {
  readonly runId: string;
  readonly event: StoredEvent;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Commits a group of waiting appends in one transaction, as the SQL stores do: `transaction`
 * appends each (setting, in the map it is given, the new length of each run it appended to) and
 * returns each one's outcome in order, `null` or why it was refused. Once it has returned, the new
 * lengths go to `known` and each append is told its outcome; when it throws, every append is told
 * that error and `known` is left as it was. A transaction that returns a promise makes the result
 * one, settled after the appends are told.
 */
export function commitAppendGroup(
  waiting: readonly WaitingAppend[],
  known: Map<string, number>,
  transaction: (lengths: Map<string, number>) => readonly unknown[],
): void;
export function commitAppendGroup(
  waiting: readonly WaitingAppend[],
  known: Map<string, number>,
  transaction: (lengths: Map<string, number>) => Promise<readonly unknown[]>,
): Promise<void>;
export function commitAppendGroup(
  waiting: readonly WaitingAppend[],
  known: Map<string, number>,
  transaction: (lengths: Map<string, number>) => readonly unknown[] | Promise<readonly unknown[]>,
): void | Promise<void> {
  const lengths = new Map<string, number>();
  const fail = (error: unknown): void => {
    for (const { reject } of waiting) reject(error);
  };
  const settle = (outcomes: readonly unknown[]): void => {
    for (const [runId, length] of lengths) known.set(runId, length);
    for (const [index, { resolve, reject }] of waiting.entries()) {
      const outcome = outcomes[index];
      if (outcome === null) resolve();
      else reject(outcome);
    }
  };
  let outcomes: readonly unknown[] | Promise<readonly unknown[]>;
  try {
    outcomes = transaction(lengths);
  } catch (error) {
    fail(error);
    return;
  }
  if (outcomes instanceof Promise) return outcomes.then(settle, fail);
  settle(outcomes);
}
