import type { CompactedView } from "./compacted-view.js";
import type { MessageContent } from "./content-part.js";
import type { TurnChecks } from "./guardrail.js";
import type { AgentShown } from "./handoff.js";
import type { MemoryHit, MemoryScope, MemorySettings } from "./memory.js";
import type { ToolFailure } from "./tool-outcome.js";
import type { Transcript } from "./transcript.js";
import type {
  EndStatus,
  GuardrailStage,
  Message,
  ModelPrice,
  ModelReply,
  PendingQuestion,
  Pricing,
  ToolCall,
  ToolChoice,
  ToolSpec,
  Usage,
} from "./types.js";

/**
 * The run's vocabulary in one place: the settings a run is decided by, the events the machine
 * takes, the requests it makes, and the lifecycle events the log adds around them. The log's
 * event type is the machine's events plus the lifecycle events; nothing is declared twice.
 */

export { EVENT_LOG_SCHEMA_VERSION } from "./log-flags.js";

/**
 * Everything that decides a run besides the model's replies and the tools' results, resolved
 * once (defaults filled in, every value checked) and logged in `run.started`. The machine is
 * started from these and nothing else. Fields marked "absent" may be missing from logs of older
 * versions; each then means the behaviour of that version, so old logs replay exactly.
 */
export interface RunSettings extends TurnChecks {
  /** The user's first message: text, or a list of parts (normalized: see `normalizeContent`). */
  readonly task: MessageContent;
  readonly system: string;
  /** Messages between the system message and the task: a conversation carried over from elsewhere (absent: none). */
  readonly history?: readonly Message[];
  /** Model calls allowed per turn. */
  readonly maxSteps: number;
  /** Tokens allowed per turn; `Infinity` for no limit (logged as `null`: JSON has no Infinity). */
  readonly tokenBudget: number;
  /** The tool specs the model is shown; resume refuses a registry whose specs differ. */
  readonly tools: readonly ToolSpec[];
  /** Names of the tools that run only after a decision (absent: none). */
  readonly approvalRequired?: readonly string[];
  /** Names of the tools that are safe to run twice (absent: none); decides the repeated-call refusal's words. */
  readonly idempotentTools?: readonly string[];
  /** Names of the tools the repeated-call guard never refuses (absent: none). */
  readonly repeatableTools?: readonly string[];
  /** The same call this many times in a row is not run; `Infinity` (logged as `null`, absent) turns the guard off. */
  readonly repeatLimit?: number;
  /** What a repeated call does: `refuse` it with an `ERROR:` observation, or `stop` the run (absent: refuse). */
  readonly onRepeatedCall?: "refuse" | "stop";
  /** Tokens reserved for the reply in the check before each call (absent: 0). */
  readonly replyReserve?: number;
  /** Tokens reserved for the reply of each fallback model, in order, when one differs from `replyReserve` (absent: `replyReserve`). */
  readonly fallbackReserves?: readonly number[];
  /** Tokens reserved for the summarizer's reply, when it differs from `replyReserve` (absent: `replyReserve`). */
  readonly summaryReserve?: number;
  /** Whether a reply's provider `usage` replaces the estimate for that call (absent: false, estimates only). */
  readonly countUsage?: boolean;
  /**
   * Whether the check before a call takes the next prompt to be at least what the provider counted
   * of the called model's last prompt plus the estimate of what came since (absent: the estimate
   * alone, as logs written before it did decide).
   */
  readonly countPrompt?: boolean;
  /**
   * How many calls of one reply may be in progress (running or waiting for a decision) at once,
   * taken in call order; `Infinity` (logged as `null`) for all of them (absent: 1, one at a time).
   */
  readonly toolConcurrency?: number;
  /** How a failed model call is tried again (absent: it is not; from schema 4 on). */
  readonly retry?: RetrySettings;
  /** How many fallback models the run was given (absent: none; from schema 4 on). */
  readonly fallbackModels?: number;
  /** When and how the model is shown a compacted view of a long list (absent: never; see `CompactionSettings`). */
  readonly compaction?: CompactionSettings;
  /** Whether `prepareStep` decides each model call's settings, logged as `step.prepared` before it (absent: false). */
  readonly prepareStep?: boolean;
  /** The ask-user tools: a call of one with a `question` pauses the run for a person's answer (absent: none). */
  readonly askTools?: readonly AskToolSettings[];
  /** Prices by model name as given, which the run's agent tools inherit (absent: no pricing, no cost). */
  readonly pricing?: Pricing;
  /** The price of each model the run may call, resolved from `pricing` (absent: no pricing, no cost). */
  readonly prices?: RunPrices;
  /** USD allowed per turn, checked before each call (absent: no limit; only with `prices`). */
  readonly costBudget?: number;
  /** The agents the run may hand the conversation to, and the one it started with (absent: no handoff tools). */
  readonly handoffs?: HandoffSettings;
  /** Whose memories the run recalls before each turn, and how many (absent: none). */
  readonly memory?: MemorySettings;
}

/**
 * One agent a run may hand the conversation to, as logged in `run.started`: what the machine
 * decides by while it answers — its system prompt, the tools it offers and how each is treated,
 * and which of its tools hand over to whom. Its model is not a setting: the run finds it by name
 * among the handoff tools of the agent it was started with.
 */
export interface AgentProfile {
  readonly name: string;
  readonly system: string;
  readonly tools: readonly ToolSpec[];
  readonly approvalRequired?: readonly string[];
  readonly idempotentTools?: readonly string[];
  readonly repeatableTools?: readonly string[];
  readonly askTools?: readonly AskToolSettings[];
  /** Tokens reserved for its model's reply in the check before each of its calls (absent: the run's `replyReserve`). */
  readonly replyReserve?: number;
  /** Its model as priced, with `pricing` (absent: the run is not priced). */
  readonly price?: PricedModel;
  /** Its handoff tools: a call of `tool` gives the conversation to agent `to`. */
  readonly transfers: readonly { readonly tool: string; readonly to: string }[];
}

/** The agents of a run with handoffs: the one it started with, by name, and every agent reachable from it. */
export interface HandoffSettings {
  readonly agent: string;
  readonly agents: readonly AgentProfile[];
}

/**
 * The conversation was handed over by call `callId` from agent `from` to agent `to`, once every
 * call of the reply had its tool message: from the next model call on, `to`'s model answers with
 * its system prompt and tools. `messages` is what its `inputFilter` left the target to see of the
 * conversation before (after its system prompt), every call with its result (absent: no filter,
 * the whole conversation); messages appended later are shown as they come.
 */
export type HandoffEvent = {
  readonly type: "handoff";
  readonly callId: string;
  readonly from: string;
  readonly to: string;
  readonly messages?: readonly Message[];
};

/** What the machine asks for a handoff: the target's view of the conversation (`handoff`, its `inputFilter` run on the list). */
export type HandOffRequest = {
  readonly type: "handOff";
  readonly call: ToolCall;
  readonly from: string;
  readonly to: string;
};

/** A model as priced: its name (null when it has none) and its price (null when `pricing` has none for it). */
export interface PricedModel {
  readonly name: string | null;
  readonly price: ModelPrice | null;
}

/** The prices a run decides by: the run's model first, then each fallback model in order; and the summarizer's. */
export interface RunPrices {
  readonly models: readonly PricedModel[];
  /** The summarizer's, when the run compacts by summary (absent: it does not). */
  readonly summarizer?: PricedModel;
}

/** An ask-user tool as logged: its name, and the JSON Schema its answers must fit (absent: any JSON value). */
export interface AskToolSettings {
  readonly name: string;
  readonly answer?: Readonly<Record<string, unknown>>;
}

/**
 * What `prepareStep` decided for model call `step`, logged before the call (so that replay,
 * resume and fork never ask it again). Every field is absent when it left that setting alone; a
 * step it left wholly alone is not logged (a resume cut off in that step's call asks it again).
 * Logs written before may hold such an event with no field: it replays as the step it was.
 */
export type StepPrepared = {
  readonly type: "step.prepared";
  readonly step: number;
  /** The only tools offered in this call, by name. */
  readonly activeTools?: readonly string[];
  readonly toolChoice?: ToolChoice;
  /** The model picked for this call, by its `modelName` (`"(unnamed)"` for a model without one). */
  readonly model?: string;
  /** Tokens reserved for the picked model's reply (its `maxReplyTokens`, else the run's `replyReserve`). */
  readonly reserve?: number;
  /** Text added to the system prompt for this call only. */
  readonly system?: string;
};

/** A person's answer to a question the model asked through an ask-user tool: the call's observation is `answer` as JSON. */
export type QuestionAnswered = {
  readonly type: "question.answered";
  readonly callId: string;
  /** Plain JSON, checked against the tool's answer schema before it was logged. */
  readonly answer: unknown;
};

/**
 * A running tool asked a person a question (its context's `ask`) with no answer at hand: the call
 * ended without an observation and waits, as an ask-user tool's call does, for `question.answered`
 * with the same `callId`; the call is then made again, and this time `ask` gives that answer.
 */
export type ToolAsked = {
  readonly type: "tool.asked";
  readonly callId: string;
  readonly question: string;
  /** The answer's JSON Schema, when the tool gave one (absent: any JSON value). */
  readonly schema?: Readonly<Record<string, unknown>>;
};

/**
 * A running agent tool's child paused for decisions or answers: the call ends nothing and waits,
 * paused in its child, listing what waits below it with ids chained under the call (`<call
 * id>/<child call id>`, see `chainCallId`). The run waits as it does for its own decisions and
 * questions; `tool.resumed` (once a decision or an answer for one of them is given) makes the
 * call run again, and its child goes on from its own log.
 */
export type ToolPaused = {
  readonly type: "tool.paused";
  readonly callId: string;
  /** The child's calls (at any depth) that wait for a decision, with chained ids, as the child's result lists them. */
  readonly pending: readonly ToolCall[];
  /** The child's questions (at any depth) that wait for an answer, with chained ids. */
  readonly questions: readonly PendingQuestion[];
};

/** A call paused in its child runs again: a decision or an answer for what waits below it was given. */
export type ToolResumed = { readonly type: "tool.resumed"; readonly callId: string };

/**
 * A model call refused before it was made by the spending ceiling of the run's owner (`ceiling`,
 * which a served agent's `tenantBudget` sets): the owner had spent `spent` USD of `limit` in the
 * window, and the call could have cost up to `reserve` more. The turn ends `cost_budget`.
 */
export type CeilingReached = {
  readonly type: "ceiling.reached";
  /** The ceiling that would have been passed: the owner's spending this UTC day, or this UTC month. */
  readonly window: "day" | "month";
  /** USD the owner may spend in the window. */
  readonly limit: number;
  /** USD the owner had spent (or held for calls in flight) in the window when the call was asked for. */
  readonly spent: number;
  /** USD the call could have cost at most: its prompt at the model's dearest input rate, its longest reply at the output rate. */
  readonly reserve: number;
};

/** Context compaction as logged: the trigger and the strategy, resolved (the summarizer is a model, not a setting). */
export interface CompactionSettings {
  /** A model call whose prompt estimate would pass this many tokens is shown a compacted view. */
  readonly triggerTokens: number;
  /** `summarize` shows a summary in place of the hidden messages; `trim` drops them. */
  readonly strategy: "summarize" | "trim";
  /** Messages at the end shown as they are (more when a call's tool messages would be split). */
  readonly keepRecent: number;
}

/** `retry` resolved: attempts after a failure per model, and the backoff's first and longest wait in milliseconds. */
export interface RetrySettings {
  readonly attempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

/** A failed model call, as logged before the next attempt (from schema 4 on, with `retry` or `fallbackModels`). */
export type ModelFailed = {
  readonly type: "model.failed";
  /** The failure in one line: the SDK error's name (its class when the name is the plain `Error`) and message. */
  readonly error: string;
  readonly retryable: boolean;
  /** Milliseconds the provider asked to wait, when it said. */
  readonly retryAfterMs?: number;
  /** Which model failed: 0 the run's model, 1 the first of `fallbackModels`, and so on. */
  readonly model: number;
};

/** How a turn of a run ended, in brief, so that a store can list runs without replaying them. */
export interface RunOutcome {
  readonly status: EndStatus;
  readonly answer: string | null;
  readonly steps: number;
  readonly tokens: number;
  /** Tokens spent past the budget, when the provider counted more than the estimate allowed for (absent: none). */
  readonly tokensOverBudget?: number;
  /** USD spent over the run, when it was priced and every model called had a price (absent: unknown). */
  readonly cost?: number;
  /** USD spent past the cost budget, when a provider billed more than the check before its call counted on (absent: none). */
  readonly costOverBudget?: number;
}

/** The events the machine takes: a reply, a call's observation, a decision, the caller's abort. */
export type AgentEvent =
  | {
      readonly type: "model.replied";
      readonly reply: ModelReply;
      /** Which model answered, with `retry` or `fallbackModels` (absent: the run's model). */
      readonly model?: number;
    }
  | ModelFailed
  | {
      readonly type: "retry.waited";
      /** Milliseconds the driver waited (absent in logs written before it was recorded). */
      readonly delayMs?: number;
    }
  | {
      readonly type: "tool.finished";
      readonly callId: string;
      readonly content: MessageContent;
      /** The observation is an error (from schema 3 on; absent: a result). */
      readonly isError?: true;
      /** Why it is an error, with `isError` (absent: a result, or an error logged before this field was; `toolFailureOf` reads both). */
      readonly failure?: ToolFailure;
      /** The child run an agent tool's call ran (from schema 4 on; absent: a plain tool). */
      readonly childRunId?: string;
      /** Tokens the child run spent, counted in this run's `tokens` (from schema 4 on; absent: none). */
      readonly tokens?: number;
      /** USD the child run spent, counted in this run's cost (absent: none, or unknown). */
      readonly cost?: number;
      /** Models the child called without a price: the run's cost is unknown (absent: none). */
      readonly unpriced?: readonly string[];
    }
  | { readonly type: "approval.decided"; readonly callId: string; readonly approved: boolean; readonly reason?: string }
  | { readonly type: "run.cancelled"; readonly reason?: string }
  | ContextCompacted
  | OutputChecked
  | GuardrailChecked
  | StepPrepared
  | QuestionAnswered
  | ToolAsked
  | ToolPaused
  | ToolResumed
  | HandoffEvent
  | CeilingReached
  | MemoryRecalled;

/**
 * What the memory store gave for the turn's message before its first model call: the hits, values
 * included, best first. The model is shown them as quoted data in a message of the turn (none when
 * there are no hits); replay and resume read them here and never ask the store again.
 */
export type MemoryRecalled = {
  readonly type: "memory.recalled";
  readonly scope: MemoryScope;
  readonly query: string;
  readonly hits: readonly MemoryHit[];
};

/** A memory a tool wrote (`memoryTools`' `remember`), logged before the call's `tool.finished`. */
export type MemoryWritten = {
  readonly type: "memory.written";
  readonly callId: string;
  readonly scope: MemoryScope;
  readonly key: string;
  readonly value: string;
};

/**
 * The messages before `keptFrom` (after the task) are no longer shown to the model from model
 * call `step` on: replaced by `summary`, or dropped when it is absent (`trim`). `usage` is the
 * summarizer's, when its provider gave one.
 */
export type ContextCompacted = {
  readonly type: "context.compacted";
  readonly step: number;
  readonly keptFrom: number;
  readonly summary?: string;
  readonly usage?: Usage;
};

/** The verdict on an answer checked against the turn's `output` schema: its value, or the sentence that refuses it. */
export type OutputChecked =
  | { readonly type: "output.checked"; readonly valid: true; readonly value: unknown }
  | { readonly type: "output.checked"; readonly valid: false; readonly problem: string };

/** One guardrail's verdict; `index` is its place in the stage's order of declaration. */
export type GuardrailChecked = {
  readonly type: "guardrail.checked";
  readonly stage: GuardrailStage;
  readonly index: number;
  readonly name: string;
  readonly tripped: boolean;
  /** Why it tripped (only when it did). */
  readonly reason?: string;
};

/** What the machine asks of whoever drives it: it emits these, and they are answered with `AgentEvent`s. */
export type AgentRequest =
  | {
      readonly type: "callModel";
      /** The model call this is, counting from 1 over the whole run. */
      readonly step: number;
      /** The list so far; the driver shows the model a read-only view of it. */
      readonly transcript: Transcript;
      readonly specs: readonly ToolSpec[];
      /** What a compaction left the model to see (absent: the whole list). */
      readonly view?: CompactedView;
      /** Which model to ask: 0 (or absent) the run's model (or the one `prepareStep` picked), 1 the first of `fallbackModels`, and so on. */
      readonly model?: number;
      /** What `prepareStep` decided for this call (absent: the run's settings). */
      readonly prepared?: StepPrepared;
      /**
       * Asks `prepareStep` first, in the same performance: when it decides nothing the model is
       * called with the run's settings and nothing more is logged; when it decides something, the
       * answer is `step.prepared` instead of the reply, and the machine checks the budget again
       * and asks for the call it prepared.
       */
      readonly prepare?: true;
      /** In a run with handoffs: the agent whose model answers, and what it is shown when a handoff shaped it (null: the list as it is). */
      readonly agent?: { readonly name: string; readonly shown: AgentShown | null };
    }
  | {
      readonly type: "prepareStep";
      /** The model call about to be made, counting from 1 over the whole run. */
      readonly step: number;
      readonly transcript: Transcript;
      /** Tokens spent so far over the run. */
      readonly tokens: number;
    }
  | {
      readonly type: "askUser";
      readonly call: ToolCall;
      readonly question: string;
      /** The answer's JSON Schema, when the tool gives one. */
      readonly schema?: Readonly<Record<string, unknown>>;
      /** For a question a running tool asked (`tool.asked`): which of the call's questions this is, from 1 (absent: an ask-user tool's). */
      readonly asked?: number;
    }
  | {
      readonly type: "waitRetry";
      /** Milliseconds to wait before the next attempt. */
      readonly delayMs: number;
      /** Whether the driver may spread the wait (the harness's own backoff), or must keep it (the provider's `retry-after`). */
      readonly jitter: boolean;
    }
  | {
      readonly type: "compactContext";
      /** The model call the compacted view is for. */
      readonly step: number;
      readonly strategy: "summarize" | "trim";
      /** The first message to keep showing; the ones before it (after the task) are hidden. */
      readonly keptFrom: number;
      /** What the summarizer is asked (for `summarize`; empty for `trim`). */
      readonly prompt: readonly Message[];
    }
  | {
      readonly type: "runTool";
      readonly call: ToolCall;
      /** The answers to the questions the call asked before, in order: the call is made again, and its `ask` gives them (absent: none). */
      readonly answers?: readonly unknown[];
    }
  | { readonly type: "requestDecision"; readonly call: ToolCall }
  | {
      /** Waits until a decision or an answer is given for what call `call`'s paused child waits on; answered by `tool.resumed`. */
      readonly type: "resumeChild";
      readonly call: ToolCall;
      readonly pending: readonly ToolCall[];
      readonly questions: readonly PendingQuestion[];
    }
  | { readonly type: "checkOutput"; readonly text: string }
  | {
      /** Recalls memories for the turn's message; answered by `memory.recalled`. */
      readonly type: "recallMemory";
      readonly scope: MemoryScope;
      readonly query: string;
      readonly limit: number;
      /** The turn's message's place in the list (from 0): it names the recall among the run's. */
      readonly message: number;
    }
  | {
      readonly type: "checkGuardrail";
      readonly stage: GuardrailStage;
      readonly index: number;
      readonly name: string;
      readonly text: string;
      readonly transcript: Transcript;
    }
  | HandOffRequest;

/**
 * Who a served request is from, as the server's `authorize` tells it: the tenant whose runs it may
 * use, and the user in it. A run started for a principal logs it as its `owner`.
 */
export interface Principal {
  /** Non-empty; runs are told apart by tenant. */
  readonly tenant: string;
  readonly user?: string;
}

/** Whether `value` is a principal: a non-empty `tenant` string, and a `user` string if any. */
export function isPrincipal(value: unknown): value is Principal {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { tenant, user } = value as Record<string, unknown>;
  return typeof tenant === "string" && tenant !== "" && (user === undefined || typeof user === "string");
}

/** Events the log holds around the machine's own: a run's start and end, a tool's start, a conversation's next message. */
export type LifecycleEvent =
  | {
      readonly type: "run.started";
      readonly schemaVersion: number;
      readonly settings: RunSettings;
      /** Set when the run was forked from another one's log. */
      readonly forkedFrom?: { readonly runId: string; readonly seq: number };
      /** Set when the run is an agent tool's child: the parent run and the call that runs it. */
      readonly parent?: { readonly runId: string; readonly callId: string };
      /** Set when the run was started for a served request's principal: only that tenant may use it (absent: no one's). */
      readonly owner?: Principal;
    }
  | {
      readonly type: "tool.started";
      readonly callId: string;
      readonly name: string;
      /** The child run an agent tool's call runs (absent: a plain tool). */
      readonly childRunId?: string;
    }
  | { readonly type: "run.finished"; readonly outcome: RunOutcome }
  | RunAnchored
  /** A running call's tool noted `note` (plain JSON) before it went on: given back to it when the call is made again (`ToolContext.notes`). */
  | { readonly type: "tool.noted"; readonly callId: string; readonly note: unknown }
  | {
      readonly type: "user.messaged";
      readonly content: MessageContent;
      /** The new turn's output schema and guardrails (absent: none). */
      readonly turn?: TurnChecks;
    }
  | MemoryWritten;

/**
 * Where a log starts once `retain` dropped a finished run's events: it stands, at position 0, for
 * all of them. It keeps their `run.started` as logged, the hash of the last one (`tip`, which this
 * event's own hash chains to), and the state they folded to, from which the conversation goes on.
 */
export interface RunAnchored {
  readonly type: "run.anchored";
  /** The run's `run.started`, as it was logged (stamps and hash included). */
  readonly started: Extract<LifecycleEvent, { type: "run.started" }> & {
    readonly seq: number;
    readonly at: string;
    readonly hash?: string;
  };
  /** How many events it stands for. */
  readonly events: number;
  /** When the last of them was logged (ISO 8601). */
  readonly lastAt: string;
  /** The hash of the last of them. */
  readonly tip: string;
  /** Turns of the conversation they hold, from 1. */
  readonly turns: number;
  /** The outcome their last `run.finished` recorded. */
  readonly outcome: RunOutcome;
  /** The state they folded to. */
  readonly state: AnchorState;
}

/**
 * A finished run's state as `run.anchored` keeps it: the message list, and the rest of what the
 * machine's context carries into a next turn (counters, costs, what the compaction shows, the last
 * turn's checks), as JSON. What the run's settings give is not kept: it is read from `started`.
 */
export interface AnchorState {
  readonly messages: readonly Message[];
  readonly context: Readonly<Record<string, unknown>>;
}

/** What happened in a run, in our own documented names; never XState internals. */
export type RunEvent = AgentEvent | LifecycleEvent;

/**
 * A logged event, stamped by the shell: its 0-based position `seq`, the time `at` (ISO 8601), and
 * from schema 2 on a `hash` that chains it to the run and to the event before it.
 */
export type StoredEvent = RunEvent & { readonly seq: number; readonly at: string; readonly hash?: string };

/** The names of the events a log may hold. */
export const RUN_EVENT_TYPES: readonly RunEvent["type"][] = [
  "run.started",
  "model.replied",
  "tool.started",
  "tool.finished",
  "approval.decided",
  "run.cancelled",
  "run.finished",
  "user.messaged",
  "context.compacted",
  "model.failed",
  "retry.waited",
  "output.checked",
  "guardrail.checked",
  "step.prepared",
  "question.answered",
  "tool.asked",
  "tool.paused",
  "tool.resumed",
  "run.anchored",
  "handoff",
  "tool.noted",
  "ceiling.reached",
  "memory.recalled",
  "memory.written",
];

/** The `tool.finished` event of an observation: a result, or, given why, an error (`isError` and `failure`). */
export function toolFinished(
  callId: string,
  content: MessageContent,
  failure?: ToolFailure,
): Extract<AgentEvent, { type: "tool.finished" }> {
  const event = { type: "tool.finished", callId, content } as const;
  return failure === undefined ? event : { ...event, isError: true, failure };
}
