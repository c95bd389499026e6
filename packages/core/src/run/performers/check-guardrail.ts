import type { Guardrail, GuardrailChecked, GuardrailStage } from "../../data/index.js";
import { describeThrown, listView, type Transcript } from "../../data/index.js";
import { runGuarded } from "../../tools/index.js";

/** Milliseconds a guardrail may take when it sets no `timeoutMs`. */
export const DEFAULT_GUARDRAIL_TIMEOUT_MS = 60_000;

/** A machine's request for one guardrail's verdict. */
export interface GuardrailRequest {
  readonly stage: GuardrailStage;
  readonly index: number;
  readonly name: string;
  readonly text: string;
  readonly transcript: Transcript;
}

/**
 * Runs one guardrail on the text of its stage and answers with its `guardrail.checked` event.
 * Never rejects: a guardrail that throws, times out or returns something that is not a verdict
 * trips, with a reason that says so (it fails closed).
 */
export async function checkGuardrail(
  guardrail: Guardrail,
  request: GuardrailRequest,
  runSignal: () => AbortSignal | undefined,
): Promise<GuardrailChecked> {
  const { stage, index, name, text, transcript } = request;
  const timeoutMs = guardrail.timeoutMs ?? DEFAULT_GUARDRAIL_TIMEOUT_MS;
  const outcome = await runGuarded(
    (_args, context) => guardrail.check(text, { messages: listView(transcript), signal: context.signal }),
    {},
    timeoutMs,
    {
      get signal() {
        return runSignal();
      },
    },
  );
  const event = { type: "guardrail.checked", stage, index, name } as const;
  if (outcome.kind === "timedOut")
    return { ...event, tripped: true, reason: `${name} timed out after ${timeoutMs} ms` };
  if (outcome.kind === "threw")
    return { ...event, tripped: true, reason: `${name} failed: ${describeThrown(outcome.error)}` };
  try {
    return { ...event, ...readVerdict(outcome.value, name) };
  } catch (error) {
    return {
      ...event,
      tripped: true,
      reason: `${name} failed: its verdict could not be read: ${describeThrown(error)}`,
    };
  }
}

/** Reads a verdict's fields once each; a getter or proxy that throws propagates to the caller, which trips. */
function readVerdict(value: unknown, name: string): { tripped: false } | { tripped: true; reason: string } {
  const verdict = value as { tripped?: unknown; reason?: unknown } | null;
  const tripped = verdict?.tripped;
  if (tripped === false) return { tripped: false };
  if (tripped !== true) return { tripped: true, reason: `${name} returned no verdict ({ tripped: boolean })` };
  const reason = verdict?.reason;
  return { tripped: true, reason: typeof reason === "string" ? reason : "no reason given" };
}
