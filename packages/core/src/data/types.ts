import type { MessageContent } from "./content-part.js";

/** A JSON value, as a provider hands out its metadata. */
export type JSONValue = null | string | number | boolean | { readonly [key: string]: JSONValue } | readonly JSONValue[];

/**
 * What a provider attached to a part of its reply and needs back with the next call (a Gemini
 * thought signature, an Anthropic thinking signature, a Bedrock reasoning signature), by provider
 * name, as an AI SDK provider's `providerMetadata` holds it: logged as given, sent back as that
 * provider's options.
 */
export type ProviderMetadata = Readonly<Record<string, Readonly<Record<string, JSONValue>>>>;

/** One tool call requested by the model; `id` pairs it with its tool message. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: Record<string, unknown>;
  /**
   * The arguments exactly as the provider sent them, set by adapters only when that text is not
   * a JSON object (then `args` is `{}`): the harness runs nothing and tells the model why.
   */
  readonly rawArgs?: string;
  /** What the provider attached to this call and needs back with it (see `ProviderMetadata`). */
  readonly providerMetadata?: ProviderMetadata;
}

/**
 * Token counts as the provider reports them for one call. `inputTokens` counts every token of the
 * prompt, those read from the provider's prompt cache (`cachedInputTokens`) and those written to it
 * (`cacheWriteTokens`) included; each of the two is absent when the provider does not say.
 */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Prompt tokens read from the provider's cache (billed at its cached rate). */
  readonly cachedInputTokens?: number;
  /** Prompt tokens written to the provider's cache (billed at its cache-write rate). */
  readonly cacheWriteTokens?: number;
  /** Reply tokens spent on reasoning, when the provider says (counted in `outputTokens` too). */
  readonly reasoningTokens?: number;
}

/**
 * A model's price in USD per 1M tokens: prompt tokens (`input`), reply tokens (`output`), prompt
 * tokens read from the cache (`cachedInput`, absent: the `input` rate) and written to it
 * (`cacheWrite`, absent: the `input` rate).
 */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  readonly cachedInput?: number;
  readonly cacheWrite?: number;
}

/** Prices by model name (a model's `modelName`); the key `default` prices a model with no name or none listed. */
export type Pricing = Readonly<Record<string, ModelPrice>>;

/**
 * One part of a model's reasoning, kept so that it goes back to the provider unchanged: thinking
 * text with the provider's `signature` when it gives one (Anthropic), or `reasoning_content`
 * (DeepSeek and other OpenAI-compatible servers); or reasoning the provider sent encrypted
 * (`redacted-reasoning`, Anthropic's `redacted_thinking`), opaque `data` to send back as it came.
 */
export type ReasoningPart =
  | {
      readonly type: "reasoning";
      readonly text: string;
      readonly signature?: string;
      /** What the provider attached to this part and needs back with it (see `ProviderMetadata`). */
      readonly providerMetadata?: ProviderMetadata;
    }
  | { readonly type: "redacted-reasoning"; readonly data: string; readonly providerMetadata?: ProviderMetadata };

/**
 * Why a reply ended, when it did not end the ordinary way (a final text, or tool calls): cut at
 * the reply's token limit (`length`), withheld by the provider's filter (`content-filter`), a
 * refusal (`refusal`, which ends the run with status `refused`), or another reason (`other`).
 */
export type FinishReason = "length" | "content-filter" | "refusal" | "other";

/** What a model returns: data only. No tool calls means `content` is the final answer. */
export interface ModelReply {
  readonly content: string;
  readonly toolCalls: readonly ToolCall[];
  readonly usage?: Usage;
  /** The model's reasoning before this reply, in order, as the provider needs it back. */
  readonly reasoning?: readonly ReasoningPart[];
  /** Set only when the reply did not end the ordinary way. */
  readonly finishReason?: FinishReason;
  /** What the provider attached to the reply as a whole and needs back with it (see `ProviderMetadata`). */
  readonly providerMetadata?: ProviderMetadata;
}

/** One entry of the append-only message list, which is also the run's trace. */
export type Message =
  | { readonly role: "system"; readonly content: string }
  /** The user's message: text, or a list of parts (text, images, files). */
  | { readonly role: "user"; readonly content: MessageContent }
  | {
      readonly role: "assistant";
      readonly content: string;
      readonly toolCalls: readonly ToolCall[];
      /** As the reply carried it: kept so that adapters can send it back unchanged. */
      readonly reasoning?: readonly ReasoningPart[];
      /** As the reply carried it: set only when the reply did not end the ordinary way. */
      readonly finishReason?: FinishReason;
      /** As the reply carried it: what the provider needs back with this message. */
      readonly providerMetadata?: ProviderMetadata;
    }
  | {
      readonly role: "tool";
      readonly toolCallId: string;
      readonly name: string;
      /** The observation: the result as JSON, a sentence starting `ERROR:`, or the parts a tool returned (`contentParts`). */
      readonly content: MessageContent;
      /** True when `content` is an `ERROR:` observation (absent otherwise). */
      readonly isError?: boolean;
    };

/** The scalar types a tool argument may have; `integer` means a whole number. */
export type ParameterType = "string" | "integer" | "number" | "boolean";

/**
 * A tool's arguments as JSON Schema, with an object at the root. A schema of only `properties` of
 * type `string`, `integer`, `number` or `boolean` (each with an optional `description`) and
 * `required` is the spec's subset, checked with the spec's sentences. Any other is JSON Schema of
 * the draft `$schema` names (2020-12, 2019-09, 7, 4), else 2020-12, any keyword at any depth.
 */
export interface ToolParameters {
  readonly $schema?: string;
  readonly type: "object";
  readonly properties?: Readonly<Record<string, boolean | { readonly [keyword: string]: unknown }>>;
  readonly required?: readonly string[];
  readonly [keyword: string]: unknown;
}

/** What the model is shown of a tool: never its function; `parameters` is always JSON Schema (a Standard Schema's own conversion). */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: ToolParameters;
}

/**
 * A piece of a reply as it is being written, for a model that streams: text, reasoning, or a
 * fragment of the `index`-th tool call (its id and name when first known, then its arguments'
 * JSON text in pieces). Deltas are only shown, never logged: the reply they add up to is.
 */
export type ModelDelta =
  | { readonly type: "text-delta"; readonly text: string }
  | { readonly type: "reasoning-delta"; readonly text: string }
  | {
      readonly type: "tool-call-delta";
      readonly index: number;
      readonly id?: string;
      readonly name?: string;
      readonly argsText: string;
    };

/** What a model is called with besides the list and the tools. */
export interface ModelCallOptions {
  /** Aborts when the run is cancelled or stops. */
  readonly signal: AbortSignal;
  /** Given when someone listens to the run's deltas: a model that can stream calls it as the reply is written. */
  readonly onDelta?: (delta: ModelDelta) => void;
  /**
   * True when the run retries failed calls itself (`retry` or `fallbackModels` given): an adapter
   * then makes one request per call unless told otherwise, so that retries do not multiply.
   */
  readonly harnessRetries?: boolean;
  /** Given when the run wants its answer as JSON of this JSON Schema: an adapter asks the provider for it. */
  readonly output?: { readonly schema: Readonly<Record<string, unknown>> };
  /** Which tools the model may call in this call, when `prepareStep` set it: an adapter sends it in its provider's form. */
  readonly toolChoice?: ToolChoice;
}

/**
 * Any function of this shape is a model: scripted, or a real API client. `messages` is the list
 * so far, read-only (keep it if you like: later messages never show in it).
 */
export type Model = (
  messages: readonly Message[],
  tools: readonly ToolSpec[],
  options: ModelCallOptions,
) => ModelReply | Promise<ModelReply>;

/**
 * Every way a run can end, listed once (the status type, the log's check and the CLI's exit codes
 * derive from it): a final answer (`done`); a limit (`step_limit`, `token_budget`); a refusal by
 * the model (`refused`); the same call repeated under the `stop` policy (`repeated_call`); the
 * caller's abort (`cancelled`); or a pause for a decision on a risky tool call
 * (`awaiting_approval`, which `resumeAgent` continues); answers that never matched the `output`
 * schema (`invalid_output`); a guardrail that tripped (`guardrail_tripped`); a pause for a
 * person's answer to a question the model asked (`awaiting_input`, which `resumeAgent` continues);
 * or a prompt that would overspend `costBudget` (`cost_budget`).
 */
export const AGENT_STATUSES = [
  "done",
  "step_limit",
  "token_budget",
  "refused",
  "repeated_call",
  "cancelled",
  "awaiting_approval",
  "invalid_output",
  "guardrail_tripped",
  "awaiting_input",
  "cost_budget",
] as const;

/** One of `AGENT_STATUSES`. */
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** The statuses a run pauses with, to be resumed: a decision, or a person's answer. */
export type PauseStatus = "awaiting_approval" | "awaiting_input";

/** The statuses a turn ends with, as `run.finished` records them: every status but the pauses. */
export type EndStatus = Exclude<AgentStatus, PauseStatus>;

/** `AGENT_STATUSES` without the pauses: what a log's `run.finished` may hold. */
export const END_STATUSES: readonly EndStatus[] = AGENT_STATUSES.filter(
  (status): status is EndStatus => status !== "awaiting_approval" && status !== "awaiting_input",
);

/** A question the model asked a person through an ask-user tool, waiting for its answer. */
export interface PendingQuestion {
  /** The call's id (chained, `<parent call id>/<child call id>`, for a child's question): `answers` names it. */
  readonly id: string;
  readonly question: string;
  /** The answer's JSON Schema, when the tool gives one; an answer that does not fit is refused. */
  readonly schema?: Readonly<Record<string, unknown>>;
}

/** Which tools the model may call in a step: any or none (`auto`), at least one (`required`), none (`none`), or the one named. */
export type ToolChoice = "auto" | "required" | "none" | { readonly name: string };

/** A decision on a tool call that needs approval; `reason` is shown to the model when it is denied. */
export interface Decision {
  readonly approved: boolean;
  readonly reason?: string;
}

/** Where a guardrail checks: the user's message before the turn's first model call, or the answer before `done`. */
export type GuardrailStage = "input" | "output";

/** The guardrail that ended a run `guardrail_tripped`, as `AgentResult.guardrail` tells it. */
export interface GuardrailTrip {
  readonly name: string;
  readonly stage: GuardrailStage;
  readonly reason: string;
}

/** The outcome of a run; `messages` is the whole trace, also when a limit stopped it. */
export interface AgentResult<Output = unknown> {
  readonly status: AgentStatus;
  readonly answer: string | null;
  /** Model calls made. */
  readonly steps: number;
  /** Tokens spent over the whole run: every prompt plus every reply (the provider's counts when it gives them). */
  readonly tokens: number;
  /**
   * Tokens this turn spent past `tokenBudget`, when the provider counted more than the estimate
   * the check before each call relied on (absent when the run stayed within its budget).
   */
  readonly tokensOverBudget?: number;
  readonly messages: Message[];
  /** The run's id in its event store, when one keeps it. */
  readonly runId?: string;
  /** With `awaiting_approval`: the calls of the last reply that wait for a decision, in call order. */
  readonly pendingApprovals?: readonly ToolCall[];
  /** With `awaiting_input` (and with `awaiting_approval` when questions wait too): the questions waiting for answers, in call order. */
  readonly pendingQuestions?: readonly PendingQuestion[];
  /** With `output` and `done`: the answer parsed and checked (a Standard Schema's output, transforms applied). */
  readonly output?: Output;
  /** With `guardrail_tripped`: the guardrail that tripped, its stage and its reason. */
  readonly guardrail?: GuardrailTrip;
  /**
   * USD spent over the whole run (its agent tools' children and its summarizer included), with
   * `pricing`; absent without it, or when a model called has no price (see `unpriced`).
   */
  readonly cost?: number;
  /** With `pricing`: the names of the models called that it has no price for, so the cost is unknown (absent: none). */
  readonly unpriced?: readonly string[];
  /**
   * USD this turn spent past `costBudget`, when a provider billed more than the check before its
   * call counted on (a first call's prompt, a reply longer than the reserve; absent when the run
   * stayed within its budget).
   */
  readonly costOverBudget?: number;
  /** In a run with handoffs: the agent that answered last, whose model a next turn goes on with (absent: a run without handoffs). */
  readonly agent?: string;
  /**
   * With `cost_budget` when the owner's spending ceiling (`ceiling`) ended the turn, not its own
   * `costBudget`: which window, its limit, what the owner had spent in it and what the refused call could have cost (USD).
   */
  readonly ceiling?: CeilingHit;
}

/** A spending ceiling that refused a model call, as `AgentResult.ceiling` tells it. */
export interface CeilingHit {
  readonly window: "day" | "month";
  readonly limit: number;
  readonly spent: number;
  readonly reserve: number;
}
