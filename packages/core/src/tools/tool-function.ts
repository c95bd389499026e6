import type { MemoryScope } from "../data/index.js";

/** What a tool's function gets besides its arguments. */
export interface ToolContext {
  /** Aborts on the tool's timeout and when the run is cancelled. */
  readonly signal: AbortSignal;
  /** Milliseconds this call may take (the tool's `timeoutMs`, else the run's `toolTimeoutMs`); `Infinity` for no limit. */
  readonly timeoutMs?: number;
  /**
   * Asks a person `question` while the call runs, and gives the answer (plain JSON, of the shape
   * `schema`, a JSON Schema with an object root, when given). In a run, with no answer at hand the
   * call ends here (whatever the function does after is dropped) and the run pauses with the
   * question in `pendingQuestions`, under the call's id; once it is answered the call is made again
   * from the start, and this time `ask` gives the answer. Outside a run it rejects.
   */
  readonly ask: ToolAsk;
  /**
   * Logs `value` (plain JSON) for this call before the call goes on: what the tool needs to go on
   * with the same work when it is made again — after its process died (an `idempotent` tool's
   * call is made again), or once a question it asked is answered. Resolves once it is logged.
   * Outside a run, or in a run without a store, nothing is kept and `notes` stays as it was.
   */
  readonly note: ToolNote;
  /** What this call noted in its earlier attempts (see `note`), in order; empty on its first. */
  readonly notes: readonly unknown[];
  /**
   * The run's memory scope (its `options.memory`'s), when it has one: where `memoryTools(store)`,
   * given no scope of its own, writes and searches. A served run's is the conversation's
   * (`ServeOptions.memoryScope`), so each tenant's tools reach that tenant's memories only.
   */
  readonly memoryScope?: MemoryScope | undefined;
}

/** A tool's way to log what it needs to go on with the same work when it is made again: see `ToolContext.note`. */
export type ToolNote = (value: unknown) => Promise<void>;

/** A tool's way to ask a person a question while it runs: see `ToolContext.ask`. */
export type ToolAsk = (question: string, schema?: Readonly<Record<string, unknown>>) => Promise<unknown>;

/**
 * A tool's function: gets the validated arguments (its own copy) and a context whose signal aborts
 * on its timeout or when the run is cancelled; returns a JSON-encodable value or a promise of one.
 * `Args` defaults to `never`, which accepts a function of any argument type.
 */
export type ToolFunction<Args = never> = (args: Args, context: ToolContext) => unknown;
