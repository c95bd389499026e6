import { countTokens } from "./count-tokens.js";
import type { RunSettings } from "./event-log.js";
import type { Journal } from "./journal.js";
import type { ToolRegistry } from "./tool-registry.js";
import { createTranscript, messagesOf, type Transcript, transcriptTokens } from "./transcript.js";
import type { AgentResult, AgentStatus, Model, ToolCall, ToolSpec } from "./types.js";

/** The system prompt used when none is given. */
export const DEFAULT_SYSTEM = "Use the tools to answer the user.";
/** Model calls allowed per run when `maxSteps` is not given. */
export const DEFAULT_MAX_STEPS = 8;
/** Tokens allowed per run when `tokenBudget` is not given. */
export const DEFAULT_TOKEN_BUDGET = 4000;

/** The limits of a run. */
export interface AgentOptions {
  /** The first message of the list. */
  readonly system?: string;
  /** Model calls allowed, at most; 0 or more. */
  readonly maxSteps?: number;
  /** Tokens allowed (every prompt plus every reply); checked before each call. */
  readonly tokenBudget?: number;
}

/** What starts a live `agentMachine`: the task, the model, the tools, the limits, and the log to keep. */
export interface AgentInput extends AgentOptions {
  readonly task: string;
  readonly model: Model;
  readonly registry: ToolRegistry;
  /** Where the run's events are logged, holding what was logged before when the run is resumed. */
  readonly journal?: Journal;
}

/** The machine's input: a live run's, or the logged settings alone, which is all pure replay needs. */
export type AgentMachineInput = AgentInput | RunSettings;

/** The machine's context: plain data, changed only by pure assigns. */
export interface AgentContext {
  readonly maxSteps: number;
  readonly tokenBudget: number;
  readonly specs: readonly ToolSpec[];
  /** `countTokens(specs)`, computed once: the specs are sent with every call. */
  readonly specsTokens: number;
  /** The append-only message list. */
  readonly transcript: Transcript;
  /** Model calls made. */
  readonly steps: number;
  /** Tokens spent so far: every prompt plus every reply. */
  readonly tokens: number;
  /** Calls of the last reply still waiting for their tool message, in call order. */
  readonly pendingCalls: readonly ToolCall[];
  readonly status: AgentStatus | null;
  readonly answer: string | null;
}

/** The settings a run starts with, defaults filled in; throws a `RangeError` for limits that make no sense. */
export function resolveSettings(input: AgentMachineInput): RunSettings {
  if (!("registry" in input)) return input;
  const maxSteps = input.maxSteps ?? DEFAULT_MAX_STEPS;
  const tokenBudget = input.tokenBudget ?? DEFAULT_TOKEN_BUDGET;
  if (!Number.isSafeInteger(maxSteps) || maxSteps < 0) {
    throw new RangeError(`maxSteps must be a whole number, 0 or more; got ${maxSteps}`);
  }
  if (Number.isNaN(tokenBudget) || tokenBudget < 0) {
    throw new RangeError(`tokenBudget must be a number of tokens, 0 or more; got ${tokenBudget}`);
  }
  const system = input.system ?? DEFAULT_SYSTEM;
  return { task: input.task, system, maxSteps, tokenBudget, tools: input.registry.specs() };
}

/** The context a run starts from: its settings, and the system message and the task as the list. */
export function initialContext(input: AgentMachineInput): AgentContext {
  const { task, system, maxSteps, tokenBudget, tools: specs } = resolveSettings(input);
  return {
    maxSteps,
    tokenBudget,
    specs,
    specsTokens: countTokens(specs),
    transcript: createTranscript([
      { role: "system", content: system },
      { role: "user", content: task },
    ]),
    steps: 0,
    tokens: 0,
    pendingCalls: [],
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
    messages: [...messagesOf(context.transcript)],
  };
}
