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
}

/** Token counts as the provider reports them for one call. */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** What a model returns: data only. No tool calls means `content` is the final answer. */
export interface ModelReply {
  readonly content: string;
  readonly toolCalls: readonly ToolCall[];
  readonly usage?: Usage;
}

/** One entry of the append-only message list, which is also the run's trace. */
export type Message =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string }
  | { readonly role: "assistant"; readonly content: string; readonly toolCalls: readonly ToolCall[] }
  | { readonly role: "tool"; readonly toolCallId: string; readonly name: string; readonly content: string };

/** The scalar types a tool argument may have; `integer` means a whole number. */
export type ParameterType = "string" | "integer" | "number" | "boolean";

/** The part of JSON Schema the registry supports: one object of scalar properties. */
export interface ToolParameters {
  readonly type: "object";
  readonly properties?: Readonly<Record<string, { readonly type: ParameterType; readonly description?: string }>>;
  readonly required?: readonly string[];
}

/** What the model is shown of a tool: never its function. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: ToolParameters;
}

/**
 * Any function of this shape is a model: scripted, or a real API client. `messages` is the list
 * so far, frozen (keep it if you like: later messages never show in it). `signal` aborts when the
 * run is cancelled or stops.
 */
export type Model = (
  messages: readonly Message[],
  tools: readonly ToolSpec[],
  options: { readonly signal: AbortSignal },
) => ModelReply | Promise<ModelReply>;

/**
 * How a run ended: a final answer (`done`); a limit (`step_limit`, `token_budget`); the same call
 * repeated under the `stop` policy (`repeated_call`); the caller's abort (`cancelled`); or a paused
 * run waiting for a decision on a risky tool call (`awaiting_approval`, which `resumeAgent` continues).
 */
export type AgentStatus = "done" | "step_limit" | "token_budget" | "repeated_call" | "cancelled" | "awaiting_approval";

/** A decision on a tool call that needs approval; `reason` is shown to the model when it is denied. */
export interface Decision {
  readonly approved: boolean;
  readonly reason?: string;
}

/** The outcome of a run; `messages` is the whole trace, also when a limit stopped it. */
export interface AgentResult {
  readonly status: AgentStatus;
  readonly answer: string | null;
  /** Model calls made. */
  readonly steps: number;
  /** Tokens spent over the whole run: every prompt plus every reply. */
  readonly tokens: number;
  readonly messages: Message[];
  /** The run's id in its event store, when one keeps it. */
  readonly runId?: string;
  /** With `awaiting_approval`: the calls of the last reply that wait for a decision, in call order. */
  readonly pendingApprovals?: readonly ToolCall[];
}
