import { countTokens } from "./count-tokens.js";
import type { RunSettings } from "./event-log.js";
import type { EffectPorts } from "./run-effects.js";
import type { ToolRegistry } from "./tool-registry.js";
import { createTranscript, type Transcript, transcriptTokens } from "./transcript.js";
import type { AgentResult, AgentStatus, Decision, Model, ToolCall, ToolSpec } from "./types.js";

/** The system prompt used when none is given. */
export const DEFAULT_SYSTEM = "Use the tools to answer the user.";
/** Model calls allowed per run when `maxSteps` is not given. */
export const DEFAULT_MAX_STEPS = 8;
/** Tokens allowed per run when `tokenBudget` is not given. */
export const DEFAULT_TOKEN_BUDGET = 4000;
/** The same call this many times in a row is not run, when `repeatLimit` is not given. */
export const DEFAULT_REPEAT_LIMIT = 3;

/** The limits and policies of a run: everything its decisions depend on, logged in `run.started`. */
export interface AgentOptions {
  /** The first message of the list. */
  readonly system?: string;
  /** Model calls allowed, at most; 0 or more (default 8). */
  readonly maxSteps?: number;
  /** Tokens allowed (every prompt plus every reply); checked before each call (default 4000). */
  readonly tokenBudget?: number;
  /** Tokens kept free for the reply in the check before each call (default: the model's `maxReplyTokens`, else 0). */
  readonly replyReserve?: number;
  /** The same tool with the same arguments this many times in a row is not run (default 3). */
  readonly repeatLimit?: number;
  /** A repeated call is refused with an `ERROR:` observation, or stops the run with `repeated_call` (default refuse). */
  readonly onRepeatedCall?: "refuse" | "stop";
}

/** A model that says how long its replies can be (adapters set it), so the budget can reserve room. */
export type ModelWithLimits = Model & { readonly maxReplyTokens?: number };

/** What starts a live `agentMachine`: the task, the model, the tools, the limits, and the other ports. */
export interface AgentInput extends AgentOptions, Omit<EffectPorts, "model"> {
  readonly task: string;
  readonly model: ModelWithLimits;
  readonly registry: ToolRegistry;
  /** Settings from a run's log, used as they are instead of `task` and the options (resume does this). */
  readonly settings?: RunSettings;
}

/** The machine's input: a live run's, or the logged settings alone, which is all pure replay needs. */
export type AgentMachineInput = AgentInput | RunSettings;

/** The machine's context: plain data, changed only by pure assigns. */
export interface AgentContext {
  readonly maxSteps: number;
  readonly tokenBudget: number;
  readonly replyReserve: number;
  readonly repeatLimit: number;
  /** Whether a reply's provider `usage` replaces the estimate (false only for logs written before it did). */
  readonly countUsage: boolean;
  readonly onRepeatedCall: "refuse" | "stop";
  readonly approvalRequired: readonly string[];
  readonly specs: readonly ToolSpec[];
  /** `countTokens(specs)`, computed once: the specs are sent with every call. */
  readonly specsTokens: number;
  /** The append-only message list. */
  readonly transcript: Transcript;
  /** Model calls made. */
  readonly steps: number;
  /** Tokens spent so far: every prompt plus every reply, or the provider's counts when it gives them. */
  readonly tokens: number;
  /** Calls of the last reply still waiting for their tool message, in call order. */
  readonly pendingCalls: readonly ToolCall[];
  /** Decisions received for pending calls, by call id; each is used once. */
  readonly decisions: Readonly<Record<string, Decision>>;
  /** The last call answered (tool name and canonical arguments) and how many times in a row it came. */
  readonly lastCall: { readonly key: string; readonly count: number } | null;
  readonly status: AgentStatus | null;
  readonly answer: string | null;
}

/** The settings a run starts with, defaults filled in; throws a `RangeError` for limits that make no sense. */
export function resolveSettings(input: AgentMachineInput): RunSettings {
  if (!("registry" in input)) return input;
  if (input.settings !== undefined) return input.settings;
  const settings: RunSettings = {
    task: input.task,
    system: input.system ?? DEFAULT_SYSTEM,
    maxSteps: input.maxSteps ?? DEFAULT_MAX_STEPS,
    tokenBudget: input.tokenBudget ?? DEFAULT_TOKEN_BUDGET,
    tools: input.registry.specs(),
    approvalRequired: input.registry.approvalRequired(),
    repeatLimit: input.repeatLimit ?? DEFAULT_REPEAT_LIMIT,
    onRepeatedCall: input.onRepeatedCall ?? "refuse",
    replyReserve: input.replyReserve ?? input.model.maxReplyTokens ?? 0,
    countUsage: true,
  };
  checkLimits(settings);
  return settings;
}

function checkLimits({ maxSteps, tokenBudget, repeatLimit = 2, onRepeatedCall, replyReserve = 0 }: RunSettings): void {
  const fail = (message: string) => {
    throw new RangeError(message);
  };
  if (!Number.isSafeInteger(maxSteps) || maxSteps < 0)
    fail(`maxSteps must be a whole number, 0 or more; got ${maxSteps}`);
  if (Number.isNaN(tokenBudget) || tokenBudget < 0)
    fail(`tokenBudget must be a number of tokens, 0 or more; got ${tokenBudget}`);
  if (!(Number.isFinite(replyReserve) && replyReserve >= 0)) {
    fail(`replyReserve must be a finite number of tokens, 0 or more; got ${replyReserve}`);
  }
  // 1 would refuse every call: the first of a row is never a repeat.
  if (!(repeatLimit === Number.POSITIVE_INFINITY || (Number.isSafeInteger(repeatLimit) && repeatLimit >= 2))) {
    fail(`repeatLimit must be a whole number, 2 or more, or Infinity; got ${repeatLimit}`);
  }
  if (onRepeatedCall !== "refuse" && onRepeatedCall !== "stop")
    fail(`onRepeatedCall must be 'refuse' or 'stop'; got ${onRepeatedCall}`);
}

/** The context a run starts from: its settings, and the system message and the task as the list. */
export function initialContext(input: AgentMachineInput): AgentContext {
  const settings = resolveSettings(input);
  return {
    maxSteps: settings.maxSteps,
    tokenBudget: settings.tokenBudget,
    replyReserve: settings.replyReserve ?? 0,
    repeatLimit: settings.repeatLimit ?? Number.POSITIVE_INFINITY,
    countUsage: settings.countUsage ?? false,
    onRepeatedCall: settings.onRepeatedCall ?? "refuse",
    approvalRequired: settings.approvalRequired ?? [],
    specs: settings.tools,
    specsTokens: countTokens(settings.tools),
    transcript: createTranscript([
      { role: "system", content: settings.system },
      { role: "user", content: settings.task },
    ]),
    steps: 0,
    tokens: 0,
    pendingCalls: [],
    decisions: {},
    lastCall: null,
    status: null,
    answer: null,
  };
}

/** Tokens of the next prompt: `countTokens(specs) + countTokens(messages)`, in O(1). */
export function promptTokens(context: AgentContext): number {
  return context.specsTokens + transcriptTokens(context.transcript);
}

/** The machine's output: the `AgentResult` of a finished run. */
export function resultOf(context: AgentContext): AgentResult {
  return {
    status: context.status ?? "done",
    answer: context.answer,
    steps: context.steps,
    tokens: context.tokens,
    messages: context.transcript.items.slice(0, context.transcript.length),
  };
}
