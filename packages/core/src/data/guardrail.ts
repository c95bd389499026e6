import type { Message } from "./types.js";

/** A guardrail's answer: the text may go on, or it trips the run with a reason. */
export type GuardrailVerdict = { readonly tripped: false } | { readonly tripped: true; readonly reason: string };

/**
 * A check of the text that goes into a turn (`input`) or comes out of it (`output`). It may be
 * async; one that throws, or takes longer than `timeoutMs`, trips the run (fails closed).
 */
export interface Guardrail {
  readonly name: string;
  check(
    text: string,
    context: { readonly messages: readonly Message[]; readonly signal: AbortSignal },
  ): GuardrailVerdict | Promise<GuardrailVerdict>;
  /** Milliseconds the check may take before it counts as tripped: above 0 and at most 2^31 - 1, or Infinity for none (default 60,000). */
  readonly timeoutMs?: number;
}

/** The guardrails of a run by stage, in order of declaration: the first trip in this order wins. */
export interface Guardrails {
  readonly input?: readonly Guardrail[];
  readonly output?: readonly Guardrail[];
}

/** What a turn's output check and guardrails are, as logged (names only: functions are not data). */
export interface TurnChecks {
  /** The answer's JSON Schema (absent: any text is the answer). */
  readonly output?: { readonly schema: Readonly<Record<string, unknown>> };
  /** Invalid answers the model may correct in a turn before it ends `invalid_output` (absent: 2). */
  readonly outputRetries?: number;
  /** Names of the guardrails per stage, in order of declaration (absent: none). */
  readonly guardrails?: { readonly input: readonly string[]; readonly output: readonly string[] };
}
