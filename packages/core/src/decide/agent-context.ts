import type {
  AgentResult,
  AgentStatus,
  AskToolSettings,
  CeilingHit,
  GuardrailChecked,
  GuardrailStage,
  GuardrailTrip,
  MemorySettings,
  MessageContent,
  PendingQuestion,
  RunPrices,
  RunSettings,
  StepPrepared,
  ToolCall,
  ToolSpec,
  TurnChecks,
} from "../data/index.js";
import {
  agentShownTokens,
  appendMessage,
  countTokens,
  createTranscript,
  EVENT_LOG_SCHEMA_VERSION,
  type LogFlags,
  logFlags,
  messagesOf,
  type Transcript,
  transcriptTokens,
  withoutLast,
} from "../data/index.js";
import type { CallBatch } from "./call-batch.js";
import { type CompactionState, initialCompaction, shownTokens } from "./compaction-state.js";
import { type HandoffState, initialHandoffs } from "./handoff-state.js";
import { type AttemptState, currentAttempt, type RetryPolicy, retryPolicyOf } from "./model-retry.js";
import { type CalledModel, NO_COUNTS, type PromptCount, surplusOf } from "./prompt-count.js";

/**
 * What starts `agentMachine`: resolved settings (see `resolveSettings`), the log format they came
 * from, and for the next turn of a conversation the finished turn's context and the user's message.
 */
export interface AgentMachineInput {
  readonly settings: RunSettings;
  /** The schema version of the log the settings come from (default: the current one); older logs decide as they did. */
  readonly schemaVersion?: number;
  /** The next turn of a finished run: its last context, and the user's next message. */
  readonly continues?: { readonly context: AgentContext; readonly message: MessageContent; readonly turn?: TurnChecks };
}

/** Invalid answers the model may correct in a turn when `outputRetries` is not given. */
export const DEFAULT_OUTPUT_RETRIES = 2;

/** Where a guardrail stage stands: the verdicts logged so far, by place in the order of declaration. */
export interface GuardStage {
  readonly stage: GuardrailStage;
  readonly verdicts: readonly (GuardrailChecked | null)[];
}

/** What `prepareStep` decided for one model call, with what the budget check needs of it computed once. */
export interface PreparedStep {
  readonly event: StepPrepared;
  /** The specs offered in that call: the active tools only, when it names them. */
  readonly specs: readonly ToolSpec[];
  readonly specsTokens: number;
  /** Tokens the text added to the system prompt costs in that call. */
  readonly systemTokens: number;
  /** The names the model may call in that call; null when every tool may be called. */
  readonly allowed: ReadonlySet<string> | null;
}

/** A call of the last reply that asked a question while it ran: the answers given so far, and the question that waits, if one does. */
export interface AskedCall {
  readonly callId: string;
  /** The answers to the call's questions so far, in the order it asked them. */
  readonly answers: readonly unknown[];
  /** The question that waits for its answer; null while the call is made again. */
  readonly waiting: { readonly question: string; readonly schema?: Readonly<Record<string, unknown>> } | null;
}

const NO_ASKS: readonly AskedCall[] = Object.freeze([]);

/** A call of the last reply paused in its child (see `child-pauses.ts`): what waits below it, with chained ids. */
export interface PausedCall {
  readonly callId: string;
  readonly pending: readonly ToolCall[];
  readonly questions: readonly PendingQuestion[];
}

const NO_PAUSES: readonly PausedCall[] = Object.freeze([]);

/** The machine's context: plain data, changed only by pure assigns. */
export interface AgentContext {
  readonly maxSteps: number;
  readonly tokenBudget: number;
  readonly replyReserve: number;
  /** Tokens reserved for each fallback model's reply, in order (empty: `replyReserve` for each). */
  readonly fallbackReserves: readonly number[];
  /** Tokens reserved for the summarizer's reply. */
  readonly summaryReserve: number;
  readonly repeatLimit: number;
  /** Whether a reply's provider `usage` replaces the estimate (false only for logs written before it did). */
  readonly countUsage: boolean;
  /**
   * What the providers counted of each model's last prompt past its estimate, which the budget
   * checks add to the estimate of the next prompt to that model (see `prompt-count.ts`); null when
   * the checks count the estimate alone (logs written before they did).
   */
  readonly promptCounts: readonly PromptCount[] | null;
  readonly onRepeatedCall: "refuse" | "stop";
  readonly approvalRequired: readonly string[];
  readonly idempotentTools: readonly string[];
  readonly repeatableTools: readonly string[];
  /** Calls of one reply in progress at once (running or waiting for a decision), at most. */
  readonly toolConcurrency: number;
  /** The log format the run was started with. */
  readonly schemaVersion: number;
  /** What that format changes (see `LOG_FLAGS`): logs of older versions decide as they did then. */
  readonly flags: LogFlags;
  readonly specs: readonly ToolSpec[];
  /** `countTokens(specs)`, computed once: the specs are sent with every call. */
  readonly specsTokens: number;
  /** The append-only message list. */
  readonly transcript: Transcript;
  /** What the model is shown of the list when the run compacts it; null when it never does (it sees the whole list). */
  readonly compaction: CompactionState | null;
  /** Model calls made over the whole run. */
  readonly steps: number;
  /** Tokens spent over the whole run: every prompt plus every reply, or the provider's counts when it gives them. */
  readonly tokens: number;
  /** Model calls, tokens and USD when the current turn began: the limits count from there. */
  readonly turnStart: { readonly steps: number; readonly tokens: number; readonly cost: number };
  /** The price of each model the run may call; null when the run is not priced (it has no cost). */
  readonly prices: RunPrices | null;
  /** USD allowed per turn; `Infinity` for no limit. */
  readonly costBudget: number;
  /** USD spent over the whole run (0 when it is not priced). */
  readonly cost: number;
  /** Names of the models called without a price: the run's cost is unknown. */
  readonly unpriced: readonly string[];
  /** The calls of the last reply and where each stands; null before the first reply with calls. */
  readonly batch: CallBatch | null;
  /** The last call answered (tool name and canonical arguments) and how many times in a row it came. */
  readonly lastCall: { readonly key: string; readonly count: number } | null;
  readonly status: AgentStatus | null;
  readonly answer: string | null;
  /** How failed model calls are tried again; null without `retry` and `fallbackModels`. */
  readonly retry: RetryPolicy | null;
  /** The current step's failed attempts; null when none failed. */
  readonly attempt: AttemptState | null;
  /** This turn's answer schema, or null when any text is the answer. */
  readonly output: { readonly schema: Readonly<Record<string, unknown>> } | null;
  /** Invalid answers the model may correct in this turn. */
  readonly outputRetries: number;
  /** Invalid answers given in this turn. */
  readonly invalidOutputs: number;
  /** The checked answer's value, once one passed. */
  readonly outputValue: { readonly value: unknown } | null;
  /** This turn's guardrail names per stage, in order of declaration. */
  readonly guardrails: { readonly input: readonly string[]; readonly output: readonly string[] };
  /** Whether this turn's input guardrails passed (or it has none to pass). */
  readonly inputGuarded: boolean;
  /** The guardrail stage in progress, or null. */
  readonly guard: GuardStage | null;
  /** The guardrail that tripped, once one did. */
  readonly guardrail: GuardrailTrip | null;
  /** The owner's spending ceiling that refused this turn's last model call, once one did. */
  readonly ceiling: CeilingHit | null;
  /** Whether `prepareStep` decides each model call's settings. */
  readonly prepareSteps: boolean;
  /** What it decided for the latest model call it was asked about; null before the first. */
  readonly prepared: PreparedStep | null;
  /** The ask-user tools: a call of one with a `question` waits for a person's answer. */
  readonly askTools: readonly AskToolSettings[];
  /** The calls of the last reply that asked a question while they ran (see `tool-asks.ts`). */
  readonly toolAsks: readonly AskedCall[];
  /** The calls of the last reply paused in their child (see `child-pauses.ts`). */
  readonly childPauses: readonly PausedCall[];
  /** The run's agents and the one answering now; null for a run without handoff tools. */
  readonly handoffs: HandoffState | null;
  /** Whose memories are recalled before each turn, and how many; null for a run without memory. */
  readonly memory: MemorySettings | null;
  /** Whether this turn has recalled (see `memory-recall.ts`). */
  readonly recalled: boolean;
}

/** The context a run starts from: its settings, and the system message, any history and the task as the list. */
export function initialContext({
  settings,
  schemaVersion = EVENT_LOG_SCHEMA_VERSION,
  continues,
}: AgentMachineInput): AgentContext {
  if (continues !== undefined) return nextTurn(continues.context, continues.message, continues.turn);
  const transcript = createTranscript([
    { role: "system", content: settings.system },
    ...(settings.history ?? []),
    { role: "user", content: settings.task },
  ]);
  const flags = logFlags(schemaVersion);
  const context: AgentContext = {
    maxSteps: settings.maxSteps,
    tokenBudget: settings.tokenBudget,
    replyReserve: settings.replyReserve ?? 0,
    fallbackReserves: settings.fallbackReserves ?? NO_RESERVES,
    summaryReserve: settings.summaryReserve ?? settings.replyReserve ?? 0,
    repeatLimit: settings.repeatLimit ?? Number.POSITIVE_INFINITY,
    countUsage: settings.countUsage ?? false,
    promptCounts: settings.countPrompt === true && settings.countUsage === true ? NO_COUNTS : null,
    onRepeatedCall: settings.onRepeatedCall ?? "refuse",
    approvalRequired: settings.approvalRequired ?? [],
    idempotentTools: settings.idempotentTools ?? [],
    repeatableTools: settings.repeatableTools ?? [],
    toolConcurrency: settings.toolConcurrency ?? 1,
    schemaVersion,
    flags,
    specs: settings.tools,
    specsTokens: specsTokensOf(settings.tools),
    transcript,
    compaction: initialCompaction(settings, flags),
    steps: 0,
    tokens: 0,
    turnStart: { steps: 0, tokens: 0, cost: 0 },
    prices: settings.prices ?? null,
    costBudget: settings.costBudget ?? Number.POSITIVE_INFINITY,
    cost: 0,
    unpriced: NONE_UNPRICED,
    batch: null,
    lastCall: null,
    status: null,
    answer: null,
    retry: retryPolicyOf(settings),
    attempt: null,
    ...turnChecks(settings),
    guard: null,
    guardrail: null,
    ceiling: null,
    prepareSteps: settings.prepareStep ?? false,
    prepared: null,
    askTools: settings.askTools ?? [],
    toolAsks: NO_ASKS,
    childPauses: NO_PAUSES,
    handoffs: initialHandoffs(settings.handoffs),
    memory: settings.memory ?? null,
    recalled: false,
  };
  // Every assign copies the context (XState: `Object.assign({}, context, update)`). V8 once took
  // its fast path for that copy only for a shape some spread had cloned, so the context is made by
  // one; on Node 20.20 the copy costs the same either way (see docs/benchmarks.md).
  return { ...context };
}

/**
 * The tokens of specs a registry made, kept by the first spec: they are frozen (a registry's
 * specs never change), so every run of the registry offers the same ones and their JSON need not
 * be written out again per run. Specs that could change (read from a log) are counted each time.
 */
const specsTokensKept = new WeakMap<ToolSpec, { readonly specs: readonly ToolSpec[]; readonly tokens: number }>();

export function specsTokensOf(specs: readonly ToolSpec[]): number {
  const first = specs[0];
  const kept = first === undefined ? undefined : specsTokensKept.get(first);
  if (kept !== undefined && kept.specs.length === specs.length && kept.specs.every((spec, at) => spec === specs[at])) {
    return kept.tokens;
  }
  const tokens = countTokens(specs);
  if (first !== undefined && specs.every(isFrozenSpec)) specsTokensKept.set(first, { specs: [...specs], tokens });
  return tokens;
}

function isFrozenSpec(spec: ToolSpec): boolean {
  return Object.isFrozen(spec) && Object.isFrozen(spec.parameters);
}

const NO_GUARDRAILS = { input: [], output: [] } as const;
const NO_RESERVES: readonly number[] = Object.freeze([]);
const NONE_UNPRICED: readonly string[] = [];

/** A turn's output check and guardrails, from its logged checks: absent ones are off. */
function turnChecks(
  checks: TurnChecks | undefined,
): Pick<AgentContext, "output" | "outputRetries" | "invalidOutputs" | "outputValue" | "guardrails" | "inputGuarded"> {
  return {
    output: checks?.output ?? null,
    outputRetries: checks?.outputRetries ?? DEFAULT_OUTPUT_RETRIES,
    invalidOutputs: 0,
    outputValue: null,
    guardrails: checks?.guardrails ?? NO_GUARDRAILS,
    inputGuarded: false,
  };
}

/** The context of a conversation's next turn: the list goes on with the user's message, and the limits count afresh. */
function nextTurn(context: AgentContext, message: MessageContent, turn: TurnChecks | undefined): AgentContext {
  return {
    ...context,
    ...turnChecks(turn),
    guard: null,
    guardrail: null,
    ceiling: null,
    transcript: appendMessage(withoutBlocked(context), { role: "user", content: message }),
    turnStart: { steps: context.steps, tokens: context.tokens, cost: context.cost },
    batch: null,
    childPauses: NO_PAUSES,
    recalled: false,
    // A user's message breaks any row of repeated calls.
    lastCall: null,
    status: null,
    answer: null,
  };
}

/**
 * The list a next turn goes on from: after a trip, without the message the guardrail blocked (the
 * user's message at the input stage, the answer at the output stage: the last message either
 * way), so the model never sees it, in this turn or a later one.
 */
function withoutBlocked({ status, transcript }: AgentContext): Transcript {
  return status === "guardrail_tripped" ? withoutLast(transcript) : transcript;
}

/** Tokens of the next prompt: `countTokens(specs offered) + countTokens(messages shown)` (plus what `prepareStep` added to the system prompt), in O(1). */
export function promptTokens(context: AgentContext): number {
  const { compaction, transcript } = context;
  const prepared = currentPrepared(context);
  const specs = prepared === null ? context.specsTokens : prepared.specsTokens + prepared.systemTokens;
  const shown = context.handoffs?.shown;
  if (shown != null) return specs + agentShownTokens(transcript, shown);
  return specs + (compaction === null ? transcriptTokens(transcript) : shownTokens(transcript, compaction));
}

/**
 * The next prompt as the budget checks count it: its estimate, plus what the called model's
 * provider counted of its last prompt past that prompt's estimate. So the prompt is at least the
 * provider's last count plus the estimate of what came since; with no usage reported, the estimate.
 */
export function checkedPromptTokens(context: AgentContext): number {
  const { promptCounts } = context;
  const prompt = promptTokens(context);
  if (promptCounts === null || promptCounts.length === 0) return prompt;
  return prompt + surplusOf(promptCounts, calledModel(context));
}

/** The model the next call goes to (the one that answered, while its reply is appended): a fallback the step came to, else the one `prepareStep` picked, else the run's. */
export function calledModel(context: AgentContext): CalledModel {
  const { model } = currentAttempt(context);
  if (model !== 0) return model;
  return currentPrepared(context)?.event.model ?? 0;
}

/** What `prepareStep` decided for the next model call, or null when it decided nothing for it (yet). */
export function currentPrepared({ prepared, steps }: Pick<AgentContext, "prepared" | "steps">): PreparedStep | null {
  return prepared !== null && prepared.event.step === steps + 1 ? prepared : null;
}

/** Tokens spent past the budget in this turn (the provider counted more than the estimate allowed for), or 0. */
export function tokensOverBudget(context: AgentContext): number {
  return Math.max(0, context.tokens - context.turnStart.tokens - context.tokenBudget);
}

/**
 * USD spent past the cost budget in this turn (a provider billed more than the check before its
 * call counted on), or 0: for a priced run whose every model had a price, in logs that count the
 * providers' prompts (older ones never said it). Less than a millionth of a cent is the sums' rounding.
 */
export function costOverBudget(context: AgentContext): number {
  if (context.promptCounts === null || context.costBudget === Number.POSITIVE_INFINITY) return 0;
  if (context.prices === null || context.unpriced.length > 0) return 0;
  const over = context.cost - context.turnStart.cost - context.costBudget;
  return over > 1e-8 ? over : 0;
}

/**
 * Whether a turn that ended `status` gives no answer: text leaves a run only once it passed the
 * turn's output guardrails, so not after a trip, a cancel, or an answer that never matched
 * `output` when the turn has output guardrails (they check only an answer that matched).
 */
export function withholdsAnswer(context: Pick<AgentContext, "guardrails">, status: AgentStatus): boolean {
  if (status === "guardrail_tripped" || status === "cancelled") return true;
  return status === "invalid_output" && context.guardrails.output.length > 0;
}

/** The machine's output: the `AgentResult` of a finished turn. */
export function resultOf(context: AgentContext): AgentResult {
  const over = context.flags.tokensOverBudget ? tokensOverBudget(context) : 0;
  const costOver = costOverBudget(context);
  const status = context.status ?? "done";
  const { outputValue, guardrail, ceiling } = context;
  return {
    status,
    answer: withholdsAnswer(context, status) ? null : context.answer,
    steps: context.steps,
    tokens: context.tokens,
    messages: messagesOf(context.transcript),
    ...(over > 0 ? { tokensOverBudget: over } : {}),
    ...(status === "done" && outputValue !== null ? { output: outputValue.value } : {}),
    ...(status === "guardrail_tripped" && guardrail !== null ? { guardrail } : {}),
    ...costOf(context),
    ...(costOver > 0 ? { costOverBudget: costOver } : {}),
    ...(context.handoffs === null ? {} : { agent: context.handoffs.agent }),
    ...(status === "cost_budget" && ceiling !== null ? { ceiling } : {}),
  };
}

/** The result's cost: the total when every model called had a price, else the ones that had none; nothing for a run not priced. */
export function costOf(
  context: Pick<AgentContext, "prices" | "cost" | "unpriced">,
): Pick<AgentResult, "cost" | "unpriced"> {
  if (context.prices === null) return {};
  return context.unpriced.length === 0 ? { cost: context.cost } : { unpriced: context.unpriced };
}
