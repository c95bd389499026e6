/** What a tool's function gets besides its arguments. */
export interface ToolContext {
  /** Aborts on the tool's timeout and when the run is cancelled. */
  readonly signal: AbortSignal;
  /** Milliseconds this call may take (the tool's `timeoutMs`, else the run's `toolTimeoutMs`); `Infinity` for no limit. */
  readonly timeoutMs?: number;
}

/**
 * A tool's function: gets the validated arguments (its own copy) and a context whose signal aborts
 * on its timeout or when the run is cancelled; returns a JSON-encodable value or a promise of one.
 * `Args` defaults to `never`, which accepts a function of any argument type.
 */
export type ToolFunction<Args = never> = (args: Args, context: ToolContext) => unknown;
