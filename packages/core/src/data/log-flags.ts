import type { ToolFailure } from "./tool-outcome.js";

/**
 * What a log's schema version changes, in one place. Each behaviour that differs between versions
 * is a named flag, with why it exists and the version it came with; code asks for a flag by name
 * (`logFlags(version).hashChain`), never compares version numbers, so that a log of every version
 * replays exactly as it ran. A new version adds its flags here and a golden log of its shape.
 */

/** The version of the log format this code writes; it reads this one and every older one (docs/event-log.md). */
export const EVENT_LOG_SCHEMA_VERSION = 4;

/** The oldest log format this code reads. */
export const OLDEST_EVENT_LOG_SCHEMA_VERSION = 1;

/** Each flag: the schema version it is on from. */
export const LOG_FLAGS = {
  /**
   * Every event carries a `hash` chained to the run's id and to the event before it, so that
   * damage that keeps the JSON valid (a changed byte, a dropped or copied line) is found.
   * @since 2. Schema-1 logs have no hashes and are read unchecked.
   */
  hashChain: 2,
  /**
   * A finished run goes on with `user.messaged` (a conversation's next turn).
   * @since 2. A schema-1 run is resumed as it was, but cannot be continued.
   */
  conversations: 2,
  /**
   * Call ids are unique in a run (the shell makes them so before a reply is logged), so replay
   * refuses a reply that uses one a second time.
   * @since 2. Schema-1 logs may repeat ids; their calls are told apart by position.
   */
  uniqueCallIds: 2,
  /**
   * A tool message whose observation is an error carries `isError: true`, so that adapters can
   * send the provider's error flag.
   * @since 2. Schema-1 runs showed the model no flag, and replay keeps it so.
   */
  errorFlagOnMessages: 2,
  /**
   * A result and `run.finished` say by how much the provider's counts went past the budget
   * (`tokensOverBudget`).
   * @since 2. Schema-1 results never have it.
   */
  tokensOverBudget: 2,
  /**
   * The refusal of a repeated call says "the result would not change" only for an idempotent tool;
   * for any other it tells the model to say so if it really must run again.
   * @since 2. Schema-1 logs said "would not change" for every tool.
   */
  repeatWordsByIdempotence: 2,
  /**
   * Whether a tool's observation is an error is data: `tool.finished` has `isError: true`, and an
   * event without it is a result.
   * @since 3. In older logs it is read from the observation's `ERROR:` prefix, as it was then.
   */
  toolErrorLogged: 3,
  /**
   * A run may compact the model's view of a long list (`settings.compaction`): a
   * `context.compacted` event says which messages are hidden and what summary stands for them.
   * @since 4. Older logs have no compaction, and their runs never compact.
   */
  contextCompaction: 4,
  /**
   * A failed model call can be logged (`model.failed`) and tried again after a logged wait
   * (`retry.waited`), on the same model or a fallback; a reply says which model gave it.
   * @since 4. Older logs hold no such events, and replay refuses them there.
   */
  retriedModelCalls: 4,
  /**
   * A turn may check its answer against an `output` schema and its text with guardrails: the log
   * holds the schema and the guardrails' names (`run.started`, `user.messaged`'s `turn`) and each
   * verdict (`output.checked`, `guardrail.checked`), so replay decides by them and runs no check.
   * @since 4. Older logs have no checks: every final reply is the answer, as it was.
   */
  turnChecks: 4,
  /**
   * An agent tool's call runs a child run with a log of its own: `tool.started` and
   * `tool.finished` name it (`childRunId`), and `tool.finished` carries the tokens it spent, which
   * count in this run's `tokens`.
   * @since 4. Older logs have no child runs, and replay refuses these fields there.
   */
  childRuns: 4,
} as const satisfies Record<string, number>;

/** The name of a behaviour that depends on the log's schema version. */
export type LogFlag = keyof typeof LOG_FLAGS;

/** The flags of one log, resolved from its schema version once. */
export type LogFlags = { readonly [Flag in LogFlag]: boolean };

const resolved = new Map<number, LogFlags>();

/** The flags of a log of schema `schemaVersion`: each on when the version is the one it came with or newer; one frozen object per version. */
export function logFlags(schemaVersion: number): LogFlags {
  let flags = resolved.get(schemaVersion);
  if (flags === undefined) {
    const entries = Object.entries(LOG_FLAGS).map(([flag, since]) => [flag, schemaVersion >= since]);
    flags = Object.freeze(Object.fromEntries(entries)) as LogFlags;
    resolved.set(schemaVersion, flags);
  }
  return flags;
}

/** Whether this code reads logs of schema `schemaVersion`. */
export function isReadableSchema(schemaVersion: number): boolean {
  return (
    Number.isInteger(schemaVersion) &&
    schemaVersion >= OLDEST_EVENT_LOG_SCHEMA_VERSION &&
    schemaVersion <= EVENT_LOG_SCHEMA_VERSION
  );
}

/**
 * Whether an observation is an error by its text: the registry's contract is that an error starts
 * `ERROR:` and a result is JSON (which never does). Read only for logs and messages of older
 * versions, which carry no flag: the registry says how a call ended (`ToolOutcome`).
 */
export function isErrorObservation(content: string | readonly unknown[]): boolean {
  return typeof content === "string" && content.startsWith("ERROR:");
}

/** Whether a logged tool result is an error: its `isError` when the log carries it, else its text, as older versions decided. */
export function isErrorResult(
  event: { readonly content: string | readonly unknown[]; readonly isError?: boolean },
  flags: LogFlags,
): boolean {
  return flags.toolErrorLogged ? event.isError === true : isErrorObservation(event.content);
}

/** Whether a tool message is an error: its `isError`, or for a message without one (schema-1 logs, hand-made histories) its text. */
export function isErrorMessage(message: {
  readonly content: string | readonly unknown[];
  readonly isError?: boolean;
}): boolean {
  return message.isError ?? isErrorObservation(message.content);
}

/** How the lost-result observation of a call cut off by a crash began, before `failure` said so. */
const LOST_RESULT = /^ERROR: the result of \S+ was lost/;

/**
 * Why a logged tool result is an error, or null for a result: its `failure` when the event carries
 * it; for an error logged before that field, `lost` when its text says the result was lost (as
 * readers told it then), else `unknown`.
 */
export function toolFailureOf(
  event: { readonly content: string | readonly unknown[]; readonly isError?: boolean; readonly failure?: ToolFailure },
  flags: LogFlags,
): ToolFailure | "unknown" | null {
  if (event.failure !== undefined) return event.failure;
  if (!isErrorResult(event, flags)) return null;
  return typeof event.content === "string" && LOST_RESULT.test(event.content) ? "lost" : "unknown";
}
