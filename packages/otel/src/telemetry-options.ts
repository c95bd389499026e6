import { describeValue } from "@agentloop/core/adapter";
import { type TracerProvider, trace } from "@opentelemetry/api";
import { GENAI_SCHEMA_URL, SCOPE_NAME, SCOPE_VERSION } from "./semconv.js";
import type { SpanSettings } from "./span-settings.js";

/** How runs are traced: who the model is, whether content is recorded, and where spans go. */
export interface TelemetryOptions {
  /**
   * `gen_ai.provider.name`: the conventions' name for who serves the model, e.g. `openai`,
   * `anthropic`, `azure.ai.openai`, `aws.bedrock`; another lowercase name (`ollama`, `vllm`)
   * for a server they do not list. The model function does not say, so it is given here.
   */
  readonly provider: string;
  /** `gen_ai.request.model`: the model name as sent to the provider, e.g. `gpt-4.1` (the adapter's `model` option). */
  readonly model?: string;
  /**
   * `gen_ai.request.max_tokens`: the most tokens one reply may have, as the adapter was told
   * (`maxTokens`). A model that says so itself (the adapters' `maxReplyTokens`) is believed over
   * this; spans from a log, which has no model, take it from here.
   */
  readonly maxTokens?: number;
  /** `gen_ai.agent.name`: the agent's name, which also ends the `invoke_agent` span's name. */
  readonly agentName?: string;
  /**
   * Whether spans carry content: the system prompt, the messages each model call is shown and
   * its reply, the turn's input and answer, tool arguments and results, the text of `ERROR:`
   * observations and the reasons given with decisions. Off by default: content may be large and
   * hold personal data.
   */
  readonly captureContent?: boolean;
  /**
   * `gen_ai.request.model` of the calls that go to the run's `fallbackModels`, in the same order,
   * e.g. `["claude-sonnet-4-5"]`; a call to a fallback not named here keeps `model`'s name.
   */
  readonly fallbackModels?: readonly string[];
  /** `gen_ai.request.model` of the summarizer's calls, when compaction's `summarizer` is another model than `model`. */
  readonly summarizerModel?: string;
  /** Where spans are created; the global tracer provider (the one the SDK registered) when not given. */
  readonly tracerProvider?: TracerProvider;
}

/** The span settings for `options`; throws a `TypeError` for options that make no sense. */
export function resolveTelemetry(options: TelemetryOptions): SpanSettings {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`telemetry options must be an object with at least a provider; got ${describeValue(options)}`);
  }
  const { provider, model, maxTokens, agentName, captureContent = false, tracerProvider } = options;
  const { fallbackModels = [], summarizerModel } = options;
  if (typeof provider !== "string" || provider.trim() === "") {
    throw new TypeError(
      `provider must name the model's provider for gen_ai.provider.name (e.g. "openai", "anthropic"); got ${describeValue(provider)}`,
    );
  }
  for (const [name, value] of [
    ["model", model],
    ["agentName", agentName],
    ["summarizerModel", summarizerModel],
  ] as const) {
    if (value !== undefined && (typeof value !== "string" || value === "")) {
      throw new TypeError(`${name} must be a non-empty string; got ${describeValue(value)}`);
    }
  }
  if (!Array.isArray(fallbackModels) || fallbackModels.some((name) => typeof name !== "string" || name === "")) {
    throw new TypeError(`fallbackModels must be an array of model names; got ${describeValue(fallbackModels)}`);
  }
  if (maxTokens !== undefined && !isTokenCount(maxTokens)) {
    throw new TypeError(`maxTokens must be a whole number of tokens above 0; got ${describeValue(maxTokens)}`);
  }
  if (typeof captureContent !== "boolean") {
    throw new TypeError(`captureContent must be true or false; got ${describeValue(captureContent)}`);
  }
  if (tracerProvider !== undefined && typeof tracerProvider?.getTracer !== "function") {
    throw new TypeError(`tracerProvider must be an OpenTelemetry TracerProvider; got ${describeValue(tracerProvider)}`);
  }
  const tracer = (tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE_NAME, SCOPE_VERSION, {
    schemaUrl: GENAI_SCHEMA_URL,
  });
  return { tracer, provider, model, maxTokens, agentName, captureContent, fallbackModels, summarizerModel };
}

/** Whether `value` can be a reply's token limit: a whole number above 0. */
export function isTokenCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}
