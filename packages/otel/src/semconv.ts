/**
 * The names this package writes, from the OpenTelemetry GenAI semantic conventions (status
 * Development, schema 1.42.0 of open-telemetry/semantic-conventions-genai), plus the few
 * `agentloop.*` attributes that say what the conventions have no name for.
 */

/** The schema the spans follow; the tracer is created with it. */
export const GENAI_SCHEMA_URL = "https://opentelemetry.io/schemas/gen-ai/1.42.0";

/** The instrumentation scope the spans are created under. */
export const SCOPE_NAME = "@agentloop/otel";
/** This package's version, kept equal to package.json's by a test. */
export const SCOPE_VERSION = "0.1.0";

export const ATTR = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  conversationId: "gen_ai.conversation.id",
  agentName: "gen_ai.agent.name",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheWriteTokens: "gen_ai.usage.cache_creation.input_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  maxTokens: "gen_ai.request.max_tokens",
  stream: "gen_ai.request.stream",
  timeToFirstChunk: "gen_ai.response.time_to_first_chunk",
  systemInstructions: "gen_ai.system_instructions",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolDescription: "gen_ai.tool.description",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  errorType: "error.type",
  /** `json` when the turn asks for a typed answer (its `output` schema); absent for free text, which is not a request. */
  outputType: "gen_ai.output.type",
  /** The model call this chat span is, counting from 1 over the whole run (as `step-started` counts). */
  step: "agentloop.step",
  /** How the turn ended: the `AgentResult`'s status. */
  status: "agentloop.status",
  /** Model calls made, over the whole run (the `AgentResult`'s `steps`). */
  steps: "agentloop.steps",
  /** Tokens spent, over the whole run (the `AgentResult`'s `tokens`). */
  tokens: "agentloop.tokens",
  /** USD spent, over the whole run (the `AgentResult`'s `cost`), when the run was priced and every model had a price. */
  cost: "agentloop.cost",
  approved: "agentloop.approval.approved",
  approvalReason: "agentloop.approval.reason",
  /** Which fallback model a model call went to: 1 the first of `fallbackModels`, absent for the run's own model. */
  fallback: "agentloop.model.fallback",
  /** On a summarizer's `chat` span: the model call whose compacted view the summary is for. */
  compactionStep: "agentloop.compaction.step",
  /** The first message still shown after a compaction; the ones before it (after the task) are hidden. */
  keptFrom: "agentloop.compaction.kept_from",
  guardrailStage: "agentloop.guardrail.stage",
  guardrailName: "agentloop.guardrail.name",
  /** The guardrail's place in its stage's order of declaration (the first trip in this order wins). */
  guardrailIndex: "agentloop.guardrail.index",
  guardrailTripped: "agentloop.guardrail.tripped",
  /** Why the guardrail tripped: content, recorded only with `captureContent`. */
  guardrailReason: "agentloop.guardrail.reason",
  /** Whose memories a recall searched or a write went to: `resource:<id>` or `thread:<id>`. */
  memoryScope: "agentloop.memory.scope",
  /** How many memories a recall found. */
  memoryHits: "agentloop.memory.hits",
  /** The keys of the memories a recall found (best first), or the key a tool wrote. */
  memoryKeys: "agentloop.memory.keys",
  /** The text a recall searched for: content, recorded only with `captureContent`. */
  memoryQuery: "agentloop.memory.query",
  /** The values a recall found, or the value a tool wrote: content, recorded only with `captureContent`. */
  memoryValues: "agentloop.memory.values",
  outputValid: "agentloop.output.valid",
  /** Why the answer was refused: content, recorded only with `captureContent`. */
  outputProblem: "agentloop.output.problem",
} as const;

/** The operations, as `gen_ai.operation.name` and the first word of span names. */
export const OPERATION = { agent: "invoke_agent", chat: "chat", tool: "execute_tool" } as const;

/** The value of `gen_ai.output.type` for a turn that asks for a typed answer. */
export const OUTPUT_JSON = "json";

/** The span of one guardrail's check, as the first word of its name: `guardrail <name>`. */
export const GUARDRAIL_SPAN = "guardrail";

/** The span of the recall before a turn's first model call, from the event before it to its `memory.recalled`. */
export const MEMORY_RECALL_SPAN = "memory_recall";

/** The span event recorded on a tool's `execute_tool` span (the turn's, when it has none open) for each memory it wrote. */
export const MEMORY_WRITTEN_EVENT = "agentloop.memory.written";

/** The span of a backoff before a failed model call is tried again. */
export const RETRY_WAIT_SPAN = "retry_wait";

/** The span event recorded on `invoke_agent` for each check of an answer against the turn's `output` schema. */
export const OUTPUT_EVENT = "agentloop.output.checked";

/** The span event recorded on `invoke_agent` when the model is shown a compacted view from then on. */
export const COMPACTION_EVENT = "agentloop.context.compacted";

/** `error.type` of a guardrail that did not answer in time, and of one that threw or gave no verdict. */
export const GUARDRAIL_TIMEOUT = "timeout";
export const GUARDRAIL_ERROR = "guardrail_error";

/** The span event recorded on `invoke_agent` for each decision on a call that needs approval. */
export const APPROVAL_EVENT = "agentloop.approval.decided";

/** `error.type` of an `execute_tool` span whose observation is an `ERROR:` sentence. */
export const TOOL_ERROR = "tool_error";

/** The usage attributes of a `chat` span (and, summed over its calls, an `invoke_agent` span): input and output tokens, and the cache reads and writes when the provider reported them. */
export function usageAttributes(usage: {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens?: number;
  readonly cacheWriteTokens?: number;
}): Record<string, number> {
  return {
    [ATTR.inputTokens]: usage.inputTokens,
    [ATTR.outputTokens]: usage.outputTokens,
    ...(usage.cachedInputTokens === undefined ? {} : { [ATTR.cacheReadTokens]: usage.cachedInputTokens }),
    ...(usage.cacheWriteTokens === undefined ? {} : { [ATTR.cacheWriteTokens]: usage.cacheWriteTokens }),
  };
}
