import type { GuardrailStage } from "@agentloop/core";
import { type Attributes, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { SpanPlace } from "./attempt-spans.js";
import { ATTR, GUARDRAIL_ERROR, GUARDRAIL_SPAN, GUARDRAIL_TIMEOUT } from "./semconv.js";

/** One guardrail's verdict, as its `guardrail.checked` event logs it. */
export interface Verdict {
  readonly stage: GuardrailStage;
  readonly index: number;
  readonly name: string;
  readonly tripped: boolean;
  readonly reason?: string | undefined;
}

/**
 * One guardrail's check as a span `guardrail <name>` under the turn's, from when it started to its
 * verdict: stage, order, whether it tripped, and (with `captureContent`) why. A trip is a verdict,
 * not an error; a guardrail that threw, gave no verdict or timed out (which trips the run: it
 * fails closed) also has the error status and `error.type`.
 */
export function guardrailSpan(place: SpanPlace, verdict: Verdict, content: boolean, start: Date, end: Date): void {
  const attributes: Attributes = {
    [ATTR.conversationId]: place.base[ATTR.conversationId],
    [ATTR.guardrailStage]: verdict.stage,
    [ATTR.guardrailName]: verdict.name,
    [ATTR.guardrailIndex]: verdict.index,
    [ATTR.guardrailTripped]: verdict.tripped,
  };
  if (content && verdict.reason !== undefined) attributes[ATTR.guardrailReason] = verdict.reason;
  const failure = verdict.tripped ? failureOf(verdict.name, verdict.reason ?? "") : null;
  if (failure !== null) attributes[ATTR.errorType] = failure;
  const name = `${GUARDRAIL_SPAN} ${verdict.name}`;
  const span = place.tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes, startTime: start }, place.parent);
  if (failure !== null) {
    span.setStatus({ code: SpanStatusCode.ERROR, ...(content ? { message: verdict.reason } : {}) });
  }
  span.end(end);
}

/**
 * Whether a tripped guardrail failed rather than judged, read from the reason core words for it
 * (`<name> timed out after N ms`, `<name> failed: ...`, `<name> returned no verdict ...`).
 */
function failureOf(name: string, reason: string): string | null {
  if (reason.startsWith(`${name} timed out after `)) return GUARDRAIL_TIMEOUT;
  if (reason.startsWith(`${name} failed: `) || reason.startsWith(`${name} returned no verdict`)) return GUARDRAIL_ERROR;
  return null;
}
