import type { CompactionSettings, Message, Model, Pricing, RunSettings } from "../../data/index.js";
import { checkHistory, describeValue, type MessageContent, normalizeContent } from "../../data/index.js";
import { askToolsOf, type ToolRegistry } from "../../tools/index.js";
import { DEFAULT_SYSTEM, type PrepareStep, type RunAgent, runAgents } from "../performers/index.js";
import { handoffSettings } from "./handoff-settings.js";
import { type MemoryOptions, resolveMemory } from "./memory-options.js";
import { resolvePrices } from "./pricing.js";
import { type RetryOptions, resolveRetry } from "./retry-options.js";

/** Model calls allowed per turn when `maxSteps` is not given. */
export const DEFAULT_MAX_STEPS = 8;
/** Tokens allowed per turn when `tokenBudget` is not given. */
export const DEFAULT_TOKEN_BUDGET = 4000;
/** The repeated-call guard's limit when `onRepeatedCall` turns it on without a `repeatLimit`. */
export const DEFAULT_REPEAT_LIMIT = 3;
/** Messages at the end a compaction shows as they are when `keepRecent` is not given. */
export const DEFAULT_KEEP_RECENT = 4;

/** Context compaction, as `runAgent` takes it: when to compact, how, and who writes the summaries. */
export interface CompactionOptions {
  /** Compact before a model call whose prompt estimate would pass this many tokens. */
  readonly triggerTokens: number;
  /** `summarize` (default) shows a summary in place of the hidden messages; `trim` drops them. */
  readonly strategy?: "summarize" | "trim";
  /** Messages at the end shown as they are (default 4). */
  readonly keepRecent?: number;
  /** Writes the summaries, called without tools (default: the run's model). */
  readonly summarizer?: Model;
}

/** The limits and policies of a run: everything its decisions depend on, logged in `run.started`. */
export interface AgentOptions {
  /** The first message of the list. */
  readonly system?: string;
  /**
   * The name of the agent the run starts with, in a run with handoff tools (default: the name a
   * handoff to this very registry gives it, else `agent`); `AgentResult.agent` names who answered.
   */
  readonly name?: string;
  /** Messages between the system message and the task: a conversation carried over from elsewhere. */
  readonly history?: readonly Message[];
  /** Model calls allowed per turn, at most; 0 or more (default 8). */
  readonly maxSteps?: number;
  /** Tokens allowed per turn (every prompt plus every reply); checked before each call (default 4000). */
  readonly tokenBudget?: number;
  /** Tokens kept free for the reply in the check before each call (default: the model's `maxReplyTokens`, else 0). */
  readonly replyReserve?: number;
  /**
   * Turns the repeated-call guard on: the same tool with the same arguments this many times in a
   * row is not run (2 or more). Off by default, as paging, polling and random tools are
   * legitimately called again; tools registered as `repeatable` are never refused.
   */
  readonly repeatLimit?: number;
  /**
   * What the guard does with a repeated call: refuse it with an `ERROR:` observation, or stop the
   * run with `repeated_call` (default refuse). Giving it turns the guard on, with `repeatLimit` 3
   * unless that is given too.
   */
  readonly onRepeatedCall?: "refuse" | "stop";
  /**
   * How many calls of one reply may be in progress at once (running, or waiting for a decision),
   * taken in call order: 1 runs them one at a time. Default: all of them at once.
   */
  readonly toolConcurrency?: number;
  /**
   * Shows the model a compacted view of a long list: before a model call whose prompt would pass
   * `triggerTokens`, the messages between the task and the last `keepRecent` are summarized (or
   * dropped); the list itself keeps them all. Off by default.
   */
  readonly compaction?: CompactionOptions;
  /** Tries a call that failed with a retryable `ModelError` again after an exponential backoff (a provider's `retry-after` wins), `attempts` times per model. */
  readonly retry?: RetryOptions;
  /** Models asked in turn, each with the same retries, once the run's model has failed the call. */
  readonly fallbackModels?: readonly Model[];
  /**
   * Decides each model call's settings before it is made: the tools offered, the tool choice, the
   * model, text added to the system prompt. What it decides is logged (`step.prepared`).
   */
  readonly prepareStep?: PrepareStep;
  /**
   * USD per 1M tokens by model name (a model's `modelName`; the key `default` prices any other):
   * gives each call a cost and the result its total `cost`. A model called with no price makes
   * the cost unknown (the result lists it in `unpriced`). Off by default.
   */
  readonly pricing?: Pricing;
  /**
   * USD allowed per turn: checked before every model call as `tokenBudget` is, pricing the prompt
   * at the model's dearest input rate and its longest reply at the output rate; the run ends with
   * `cost_budget`. Needs a price for every model the run may call, or the run does not start.
   */
  readonly costBudget?: number;
  /**
   * What the agent knows across conversations: before each turn's first model call the top
   * `recall` memories of `scope` for the turn's message are recalled from `store`, logged
   * (`memory.recalled`) and shown to the model as quoted data in the turn. Off by default.
   */
  readonly memory?: MemoryOptions;
}

/**
 * A model that says how long its replies can be, so the budget can reserve room, and its name,
 * so `pricing` can price it (adapters set both).
 */
export type ModelWithLimits = Model & { readonly maxReplyTokens?: number; readonly modelName?: string };

/**
 * The settings a run starts with: defaults filled in and every value checked, so that what is
 * logged is what the machine decides by, and every log a run writes can be read back. Throws a
 * `TypeError` for a value of the wrong kind and a `RangeError` for one out of range.
 */
export function resolveSettings(
  task: MessageContent,
  model: ModelWithLimits,
  registry: ToolRegistry,
  options: AgentOptions = {},
): RunSettings {
  if (typeof task !== "string" && !Array.isArray(task)) {
    throw new TypeError(`task must be a string or a list of content parts; got ${describe(task)}`);
  }
  const content = normalizeContent(task, "task");
  if (options.system !== undefined && typeof options.system !== "string") {
    throw new TypeError(`system must be a string; got ${describe(options.system)}`);
  }
  if (options.name !== undefined && typeof options.name !== "string") {
    throw new TypeError(`name must be a string; got ${describe(options.name)}`);
  }
  // A run with handoff tools starts with the agent a handoff back to this registry describes, when there is one.
  const agents = runAgents({ name: options.name, model, registry, system: options.system });
  const system =
    agents === undefined ? (options.system ?? DEFAULT_SYSTEM) : (agents.values().next().value as RunAgent).system;
  const history = options.history === undefined ? undefined : checkHistory(options.history);
  if (typeof history === "string") throw new TypeError(history);
  const onRepeatedCall = options.onRepeatedCall ?? "refuse";
  if (onRepeatedCall !== "refuse" && onRepeatedCall !== "stop") {
    throw new RangeError(`onRepeatedCall must be 'refuse' or 'stop'; got ${describe(onRepeatedCall)}`);
  }
  if (options.prepareStep !== undefined && typeof options.prepareStep !== "function") {
    throw new TypeError(`prepareStep must be a function; got ${describe(options.prepareStep)}`);
  }
  const askTools = askToolsOf(registry);
  const settings: RunSettings = {
    task: content,
    system,
    ...(history === undefined || history.length === 0 ? {} : { history }),
    ...resolveLimits(options),
    tools: registry.specs(),
    approvalRequired: registry.approvalRequired(),
    idempotentTools: registry.idempotentTools(),
    repeatableTools: registry.repeatableTools(),
    repeatLimit: count("repeatLimit", options.repeatLimit ?? defaultRepeatLimit(options), 2, true),
    onRepeatedCall,
    ...reserves(options, model),
    countUsage: true,
    countPrompt: true,
    toolConcurrency: count("toolConcurrency", options.toolConcurrency ?? Number.POSITIVE_INFINITY, 1, true),
    ...(options.compaction === undefined ? {} : { compaction: resolveCompaction(options.compaction) }),
    ...resolveRetry(options.retry, options.fallbackModels),
    ...(options.prepareStep === undefined ? {} : { prepareStep: true }),
    ...(askTools.length === 0 ? {} : { askTools }),
    ...resolvePrices(options, model),
    ...(options.memory === undefined ? {} : { memory: resolveMemory(options.memory) }),
  };
  if (agents === undefined) return settings;
  return { ...settings, handoffs: handoffSettings(agents, settings, options.replyReserve) };
}

/**
 * The tokens kept free for the reply of each model a run may call: the `replyReserve` option for
 * every one when it is given, else each model's own `maxReplyTokens` (the run's model's, or 0, for
 * a model that declares none). A fallback's or the summarizer's is logged only where it differs.
 */
function reserves(
  options: AgentOptions,
  model: ModelWithLimits,
): Pick<RunSettings, "replyReserve" | "fallbackReserves" | "summaryReserve"> {
  const replyReserve = tokens("replyReserve", options.replyReserve ?? model.maxReplyTokens ?? 0, false);
  const reserveOf = (other: ModelWithLimits | undefined, name: string): number => {
    const declared = options.replyReserve === undefined ? limitOf(other) : undefined;
    return declared === undefined ? replyReserve : tokens(name, declared, false);
  };
  const fallbacks = Array.isArray(options.fallbackModels) ? options.fallbackModels : [];
  const fallbackReserves = fallbacks.map((fallback, index) =>
    reserveOf(fallback, `fallbackModels[${index}].maxReplyTokens`),
  );
  const summarizer = options.compaction?.summarizer;
  const summaryReserve = summarizer === undefined ? replyReserve : reserveOf(summarizer, "summarizer.maxReplyTokens");
  return {
    replyReserve,
    ...(fallbackReserves.some((reserve) => reserve !== replyReserve) ? { fallbackReserves } : {}),
    ...(summaryReserve === replyReserve ? {} : { summaryReserve }),
  };
}

function limitOf(model: ModelWithLimits | undefined): number | undefined {
  return typeof model === "function" ? model.maxReplyTokens : undefined;
}

/** The compaction settings to log, defaults filled in and checked; the summarizer is checked and left out. */
function resolveCompaction(options: CompactionOptions): CompactionSettings {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`compaction must be an object with triggerTokens; got ${describe(options)}`);
  }
  const strategy = options.strategy ?? "summarize";
  if (strategy !== "summarize" && strategy !== "trim") {
    throw new RangeError(`compaction.strategy must be 'summarize' or 'trim'; got ${describe(strategy)}`);
  }
  if (options.summarizer !== undefined && typeof options.summarizer !== "function") {
    throw new TypeError(`compaction.summarizer must be a model (a function); got ${describe(options.summarizer)}`);
  }
  return {
    triggerTokens: tokens("compaction.triggerTokens", options.triggerTokens, false),
    strategy,
    keepRecent: count("compaction.keepRecent", options.keepRecent ?? DEFAULT_KEEP_RECENT, 0, false),
  };
}

/** The guard is off unless asked for: by a limit, or by a policy, which brings the usual limit. */
function defaultRepeatLimit(options: AgentOptions): number {
  return options.onRepeatedCall === undefined ? Number.POSITIVE_INFINITY : DEFAULT_REPEAT_LIMIT;
}

/** The step limit and the token budget, defaults filled in and checked as `resolveSettings` checks them. */
export function resolveLimits(options: Pick<AgentOptions, "maxSteps" | "tokenBudget">): {
  maxSteps: number;
  tokenBudget: number;
} {
  return {
    maxSteps: count("maxSteps", options.maxSteps ?? DEFAULT_MAX_STEPS, 0, false),
    tokenBudget: tokens("tokenBudget", options.tokenBudget ?? DEFAULT_TOKEN_BUDGET, true),
  };
}

/** A whole number, `min` or more, or Infinity where that means no limit. */
function count(name: string, value: unknown, min: number, unlimited: boolean): number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number; got ${describe(value)}`);
  if ((unlimited && value === Number.POSITIVE_INFINITY) || (Number.isSafeInteger(value) && value >= min)) return value;
  const infinity = unlimited ? ", or Infinity" : "";
  throw new RangeError(`${name} must be a whole number, ${min} or more${infinity}; got ${value}`);
}

/** A number of tokens, 0 or more; Infinity only where that means no limit. */
function tokens(name: string, value: unknown, unlimited: boolean): number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number of tokens; got ${describe(value)}`);
  if (value >= 0 && (Number.isFinite(value) || (unlimited && value === Number.POSITIVE_INFINITY))) return value;
  throw new RangeError(`${name} must be a ${unlimited ? "" : "finite "}number of tokens, 0 or more; got ${value}`);
}

/** A value in a few words, for an error message. */
export function describe(value: unknown): string {
  return describeValue(value, true);
}
