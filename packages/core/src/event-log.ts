import { checkReply } from "./check-reply.js";
import { EventLogError } from "./errors.js";
import type { AgentStatus, ModelReply, ToolSpec } from "./types.js";
import { isPlainObject } from "./validate-args.js";

/** The version of the log format this code writes and reads; see docs/event-log.md. */
export const EVENT_LOG_SCHEMA_VERSION = 1;

/** Everything that decides a run besides its model and tools' answers, as logged at its start. */
export interface RunSettings {
  readonly task: string;
  readonly system: string;
  readonly maxSteps: number;
  /** JSON has no Infinity: an unlimited budget is written as null, and read back as Infinity. */
  readonly tokenBudget: number;
  /** The tool specs the model was shown; resume refuses a registry whose specs differ. */
  readonly tools: readonly ToolSpec[];
  // The fields below came with the safeguards. Absent (a log written before them), each means
  // the behaviour of that time, so old logs replay exactly as they ran.
  /** Names of the tools that run only after a decision (absent: none). */
  readonly approvalRequired?: readonly string[];
  /** The same call this many times in a row is not run (absent, or null for Infinity: never refused). */
  readonly repeatLimit?: number;
  /** What a repeated call does: `refuse` it with an `ERROR:` observation, or `stop` the run (absent: refuse). */
  readonly onRepeatedCall?: "refuse" | "stop";
  /** Tokens reserved for the reply in the check before each call (absent: 0). */
  readonly replyReserve?: number;
  /** Whether a reply's provider `usage` replaces the estimate for that call (absent: false, estimates only). */
  readonly countUsage?: boolean;
}

/** The end of a run in brief, so that a store can list runs without replaying them. */
export interface RunOutcome {
  readonly status: AgentStatus;
  readonly answer: string | null;
  readonly steps: number;
  readonly tokens: number;
}

/** What happened in a run, in our own documented names; never XState internals. */
export type RunEvent =
  | {
      readonly type: "run.started";
      readonly schemaVersion: number;
      readonly settings: RunSettings;
      /** Set when the run was forked from another one's log. */
      readonly forkedFrom?: { readonly runId: string; readonly seq: number };
    }
  | { readonly type: "model.replied"; readonly reply: ModelReply }
  | { readonly type: "tool.started"; readonly callId: string; readonly name: string }
  | { readonly type: "tool.finished"; readonly callId: string; readonly content: string }
  | { readonly type: "approval.decided"; readonly callId: string; readonly approved: boolean; readonly reason?: string }
  | { readonly type: "run.cancelled"; readonly reason?: string }
  | { readonly type: "run.finished"; readonly outcome: RunOutcome };

/** A logged event: stamped by the shell with its 0-based position `seq` and the time `at` (ISO 8601). */
export type StoredEvent = RunEvent & { readonly seq: number; readonly at: string };

/** The names of the events a log may hold. */
export const RUN_EVENT_TYPES: readonly RunEvent["type"][] = [
  "run.started",
  "model.replied",
  "tool.started",
  "tool.finished",
  "approval.decided",
  "run.cancelled",
  "run.finished",
];

/**
 * Checks values read from a store and returns them as events, or throws an `EventLogError` that
 * names the run and the first bad position and keeps the valid events before it in `intact`.
 * It checks shapes and numbering only; whether the events fit the machine is `replayRun`'s job.
 */
export function parseEventLog(runId: string, values: readonly unknown[]): StoredEvent[] {
  const events: StoredEvent[] = [];
  for (const [position, value] of values.entries()) {
    const problem = eventProblem(value, position);
    if (problem !== null) {
      throw new EventLogError(`run '${runId}': event ${position} ${problem}`, { runId, position, intact: events });
    }
    events.push(decodeEvent(value as StoredEvent));
  }
  return events;
}

function eventProblem(value: unknown, position: number): string | null {
  if (!isPlainObject(value)) return "is not a JSON object";
  if (value.seq !== position) return `has seq ${JSON.stringify(value.seq)}, expected ${position}`;
  if (typeof value.at !== "string") return "has no 'at' timestamp";
  if (position === 0 && value.type !== "run.started") return "must be 'run.started'";
  if (position > 0 && value.type === "run.started") return "repeats 'run.started'";
  switch (value.type) {
    case "run.started":
      return runStartedProblem(value);
    case "model.replied": {
      const reply = checkReply(value.reply);
      return typeof reply === "string" ? `holds an invalid reply: ${reply}` : null;
    }
    case "tool.started":
      return typeof value.callId === "string" && typeof value.name === "string"
        ? null
        : "needs callId and name strings";
    case "tool.finished":
      return typeof value.callId === "string" && typeof value.content === "string"
        ? null
        : "needs callId and content strings";
    case "approval.decided":
      return typeof value.callId === "string" &&
        typeof value.approved === "boolean" &&
        (value.reason === undefined || typeof value.reason === "string")
        ? null
        : "needs a callId string, an approved boolean and an optional reason string";
    case "run.cancelled":
      return value.reason === undefined || typeof value.reason === "string"
        ? null
        : "has a reason that is not a string";
    case "run.finished":
      return isPlainObject(value.outcome) ? null : "needs an outcome";
    default:
      return `has an unknown type ${JSON.stringify(value.type)} (known: ${RUN_EVENT_TYPES.join(", ")})`;
  }
}

function runStartedProblem(value: Record<string, unknown>): string | null {
  const version = value.schemaVersion;
  if (typeof version !== "number") return "has no schemaVersion";
  if (version > EVENT_LOG_SCHEMA_VERSION) {
    return `was written with schema version ${version}; this agentloop reads up to ${EVENT_LOG_SCHEMA_VERSION}`;
  }
  if (version !== EVENT_LOG_SCHEMA_VERSION) return `has unsupported schema version ${version}`;
  const settings = value.settings;
  if (!isPlainObject(settings)) return "has no settings";
  const { task, system, maxSteps, tokenBudget, tools } = settings;
  if (typeof task !== "string" || typeof system !== "string") return "needs settings.task and settings.system strings";
  if (!Number.isSafeInteger(maxSteps) || (maxSteps as number) < 0) return "needs a whole settings.maxSteps";
  // JSON has no Infinity: an unlimited budget is logged as null.
  if (tokenBudget !== null && (typeof tokenBudget !== "number" || tokenBudget < 0)) return "needs settings.tokenBudget";
  if (!Array.isArray(tools) || !tools.every(isToolSpec)) return "needs settings.tools, a list of tool specs";
  const { approvalRequired, repeatLimit, onRepeatedCall, replyReserve } = settings;
  if (approvalRequired !== undefined && !(Array.isArray(approvalRequired) && approvalRequired.every(isString))) {
    return "needs settings.approvalRequired to be a list of tool names";
  }
  if (
    repeatLimit !== undefined &&
    repeatLimit !== null &&
    !(Number.isSafeInteger(repeatLimit) && (repeatLimit as number) >= 1)
  ) {
    return "needs settings.repeatLimit to be a whole number, 1 or more";
  }
  if (onRepeatedCall !== undefined && onRepeatedCall !== "refuse" && onRepeatedCall !== "stop") {
    return "needs settings.onRepeatedCall to be 'refuse' or 'stop'";
  }
  if (replyReserve !== undefined && !(typeof replyReserve === "number" && replyReserve >= 0)) {
    return "needs settings.replyReserve to be a number of tokens";
  }
  if (settings.countUsage !== undefined && typeof settings.countUsage !== "boolean") {
    return "needs settings.countUsage to be a boolean";
  }
  return null;
}

function isString(value: unknown): boolean {
  return typeof value === "string";
}

function isToolSpec(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    typeof value.name === "string" &&
    typeof value.description === "string" &&
    isPlainObject(value.parameters)
  );
}

function decodeEvent(event: StoredEvent): StoredEvent {
  if (event.type === "model.replied") return { ...event, reply: checkReply(event.reply) as ModelReply };
  if (event.type !== "run.started") return event;
  // JSON has no Infinity: unlimited numbers are written as null.
  const unlimited = (value: number | undefined) => (value === null ? Number.POSITIVE_INFINITY : value);
  const { tokenBudget, repeatLimit } = event.settings;
  const settings = { ...event.settings, tokenBudget: unlimited(tokenBudget) as number };
  return {
    ...event,
    settings: repeatLimit === undefined ? settings : { ...settings, repeatLimit: unlimited(repeatLimit) },
  };
}
