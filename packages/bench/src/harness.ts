import { ANSWER, expectedOutput } from "./scenario.js";

/** A run as every harness reports it, in the same terms, so that one check fits all. */
export interface Outcome {
  /** The harness says the run ended normally with a final answer (its own status or finish reason). */
  readonly finished: boolean;
  readonly answer: string;
  readonly modelCalls: number;
  /** The observations the trace holds, in call order, as the harness keeps them (text or values). */
  readonly toolOutputs: readonly unknown[];
  /** The harness's own result object, kept alive by the heap measurement. */
  readonly result: unknown;
}

/** One loop under test: the floor, agentloop, or a peer. */
export interface Harness {
  readonly name: string;
  /** The package and version measured, e.g. `ai 7.0.173`. */
  readonly version: string;
  /**
   * Builds, outside any timing, a weather run of `steps` model calls whose model waits `delayMs`
   * milliseconds per call; the returned function performs one such run each time it is called.
   */
  prepare(steps: number, delayMs: number): () => Promise<Outcome>;
}

/** Why a run does not count: the harness did not do the scenario's work. */
export class BadRunError extends Error {
  override readonly name = "BadRunError";
}

/**
 * Throws `BadRunError` unless the run finished with the scenario's answer after exactly `steps`
 * model calls, with one observation per tool call, each the real tool's result.
 */
export function checkOutcome(harness: string, outcome: Outcome, steps: number): void {
  const fail = (problem: string) => {
    throw new BadRunError(`${harness}, ${steps} steps: ${problem}`);
  };
  if (!outcome.finished) fail("the run did not finish with an answer");
  if (outcome.answer !== ANSWER) fail(`answer ${JSON.stringify(outcome.answer)}`);
  if (outcome.modelCalls !== steps) fail(`${outcome.modelCalls} model calls`);
  if (outcome.toolOutputs.length !== steps - 1) fail(`${outcome.toolOutputs.length} tool results`);
  for (const [k, output] of outcome.toolOutputs.entries()) {
    const text = typeof output === "string" ? output : JSON.stringify(output);
    if (text !== expectedOutput(k)) fail(`tool result ${k} is ${text}`);
  }
}

/** Throws `BadRunError` unless the tools ran exactly `expected` times since `before`. */
export function checkExecutions(harness: string, before: number, after: number, expected: number): void {
  if (after - before !== expected) {
    throw new BadRunError(`${harness}: the tools ran ${after - before} times, expected ${expected}`);
  }
}
