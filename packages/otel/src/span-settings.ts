import type { Tracer } from "@opentelemetry/api";

/** What every span of a telemetry object says the same way: where spans go, and about what. */
export interface SpanSettings {
  readonly tracer: Tracer;
  readonly provider: string;
  readonly model: string | undefined;
  /** The reply limit to report when the model does not say its own. */
  readonly maxTokens: number | undefined;
  readonly agentName: string | undefined;
  readonly captureContent: boolean;
  /** The names of the run's fallback models, in order, for the calls that go to them. */
  readonly fallbackModels: readonly string[];
  /** The name of the model that writes compaction summaries, when it is not `model`. */
  readonly summarizerModel: string | undefined;
}
