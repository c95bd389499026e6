import type { GuardrailStage, MemoryHit, MemoryScope } from "@agentloop/core";
import { type Attributes, type Span, SpanKind } from "@opentelemetry/api";
import { type SpanPlace, type Summary, summarySpan } from "./attempt-spans.js";
import { guardrailSpan, type Verdict } from "./guardrail-spans.js";
import { ATTR, COMPACTION_EVENT, MEMORY_RECALL_SPAN, OPERATION, OUTPUT_EVENT } from "./semconv.js";
import type { SpanSettings } from "./span-settings.js";

/**
 * What a turn checks and compacts, as spans and events under its `invoke_agent` span: a span per
 * guardrail check and per summary the summarizer writes, an event per answer check and per
 * compaction. Fed by a live run's events or by a log's, as `TurnSpans` is.
 */
export class CheckSpans {
  readonly #settings: SpanSettings;
  readonly #root: Span;
  readonly #place: SpanPlace;
  /** When each guardrail still being checked started, by stage and name. */
  readonly #guards = new Map<string, Date[]>();

  constructor(settings: SpanSettings, root: Span, place: SpanPlace) {
    this.#settings = settings;
    this.#root = root;
    this.#place = place;
  }

  /** From model call `step` on, the model is shown a compacted view: an event on the turn's span. */
  compacted(step: number, keptFrom: number, at?: Date): void {
    this.#root.addEvent(COMPACTION_EVENT, { [ATTR.step]: step, [ATTR.keptFrom]: keptFrom }, at);
  }

  /** The summarizer wrote the summary of a compaction between `start` and `end`: its `chat` span. */
  summarized(summary: Summary, start: Date, end?: Date): void {
    const { provider, model, summarizerModel, captureContent } = this.#settings;
    const named = summarizerModel ?? model;
    const base = {
      [ATTR.operation]: OPERATION.chat,
      [ATTR.provider]: provider,
      ...(named ? { [ATTR.requestModel]: named } : {}),
      [ATTR.conversationId]: this.#place.base[ATTR.conversationId],
    };
    summarySpan({ ...this.#place, base }, summary, captureContent, start, end ?? new Date());
  }

  /** A guardrail of `stage` starts its check (live runs; a log has only the verdicts). */
  guardrailStarted(stage: GuardrailStage, name: string, at?: Date): void {
    const key = `${stage} ${name}`;
    this.#guards.set(key, [...(this.#guards.get(key) ?? []), at ?? new Date()]);
  }

  /** A guardrail's verdict: its span, from when it started (`start`, or as `guardrailStarted` was told). */
  guardrailChecked(verdict: Verdict, at?: Date, start?: Date): void {
    const key = `${verdict.stage} ${verdict.name}`;
    const [started, ...rest] = this.#guards.get(key) ?? [];
    this.#guards.set(key, rest);
    const end = at ?? new Date();
    guardrailSpan(this.#place, verdict, this.#settings.captureContent, start ?? started ?? end, end);
  }

  /**
   * What the turn recalled before its first model call: a span `memory_recall` from `start` to
   * its `memory.recalled`, with the scope, the number of hits and their keys, and (with
   * `captureContent`) the query and the values.
   */
  recalled(recall: { scope: MemoryScope; query: string; hits: readonly MemoryHit[] }, start: Date, end?: Date): void {
    const attributes: Attributes = {
      [ATTR.conversationId]: this.#place.base[ATTR.conversationId],
      [ATTR.memoryScope]: scopeName(recall.scope),
      [ATTR.memoryHits]: recall.hits.length,
      [ATTR.memoryKeys]: recall.hits.map((hit) => hit.key),
    };
    if (this.#settings.captureContent) {
      attributes[ATTR.memoryQuery] = recall.query;
      attributes[ATTR.memoryValues] = recall.hits.map((hit) => hit.value);
    }
    const { tracer, parent } = this.#place;
    const span = tracer.startSpan(
      MEMORY_RECALL_SPAN,
      { kind: SpanKind.INTERNAL, attributes, startTime: start },
      parent,
    );
    span.end(end ?? new Date());
  }

  /** The answer was checked against the turn's `output` schema: an event on the turn's span. */
  outputChecked(valid: boolean, problem: string | undefined, at?: Date): void {
    const attributes: Attributes = { [ATTR.outputValid]: valid };
    if (this.#settings.captureContent && problem !== undefined) attributes[ATTR.outputProblem] = problem;
    this.#root.addEvent(OUTPUT_EVENT, attributes, at);
  }
}

/** A scope as one attribute value: `resource:<id>` or `thread:<id>`. */
export function scopeName(scope: MemoryScope): string {
  return "resource" in scope ? `resource:${scope.resource}` : `thread:${scope.thread}`;
}
