import type { Message } from "./types.js";

const BRAND = Symbol.for("agentloop.error");

/** Whether `value` is an agentloop error named `name` (any, when not given), from this copy of the library or another. */
export function isBranded(value: unknown, name?: string): boolean {
  if (typeof value !== "object" || value === null) return false;
  try {
    return (value as { [BRAND]?: unknown })[BRAND] === true && (name === undefined || (value as Error).name === name);
  } catch {
    return false;
  }
}

/**
 * The base of every error agentloop throws. `isInstance` tells them apart across realms and
 * across two copies of the library (where `instanceof` fails): `ModelError.isInstance(error)`.
 */
export class AgentloopError extends Error {
  override readonly name: string = "AgentloopError";

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** Whether `value` is an agentloop error of any kind. */
  static isInstance(value: unknown): value is AgentloopError {
    return isBranded(value);
  }
}

/** Thrown by `ToolRegistry.register` for a schema or name the registry cannot honour: a setup mistake, caught before any run. */
export class ToolSchemaError extends AgentloopError {
  override readonly name = "ToolSchemaError";

  static override isInstance(value: unknown): value is ToolSchemaError {
    return isBranded(value, "ToolSchemaError");
  }
}

/**
 * The model could not be used: it threw or rejected, returned a reply that is not a `ModelReply`,
 * or (for a scripted model) ran out of replies. The run cannot go on; `messages` is the list the
 * model was shown at that call, so nothing is lost, and `cause` is the original error.
 */
export class ModelError extends AgentloopError {
  override readonly name = "ModelError";
  /**
   * The message list as it stood when the call failed. Not enumerable: an error printed or
   * logged (`util.inspect`, a crash) never shows the conversation; read it by name.
   */
  declare readonly messages: readonly Message[];
  /** The model call that failed, counting from 1. */
  readonly step: number;
  /** Whether the same call may succeed later (a rate limit, an overload, a 5xx, a dropped connection, a timeout), as the adapter classified it. */
  readonly retryable: boolean;
  /** Milliseconds the provider asked to wait before trying again, when it said. */
  readonly retryAfterMs?: number;

  constructor(
    message: string,
    details: {
      messages: readonly Message[];
      step: number;
      cause?: unknown;
      retryable?: boolean;
      retryAfterMs?: number;
    },
  ) {
    super(message, { cause: details.cause });
    Object.defineProperty(this, "messages", { value: details.messages, enumerable: false });
    this.step = details.step;
    this.retryable = details.retryable ?? false;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }

  static override isInstance(value: unknown): value is ModelError {
    return isBranded(value, "ModelError");
  }
}

/**
 * Describes any thrown value in one line: `Name: message` for errors, JSON for the rest; never a
 * stack trace. With `byClass`, an error whose `name` is the plain `Error` is named by its class
 * instead (`RateLimitError`: SDKs that do not set `name`), as model failures are logged.
 */
export function describeThrown(value: unknown, { byClass = false }: { readonly byClass?: boolean } = {}): string {
  if (value instanceof Error) {
    try {
      return `${byClass ? classNameOf(value) : value.name}: ${value.message}`;
    } catch {
      return "an Error whose name or message cannot be read";
    }
  }
  return `threw a non-Error value: ${safeJson(value)}`;
}

/** An error's `name`, or its class's when the name is the plain `Error` and the class has one of its own. */
function classNameOf(error: Error): string {
  const { name } = error;
  if (name !== "Error") return name;
  const className: unknown = error.constructor?.name;
  return typeof className === "string" && /^[A-Za-z_$][\w$]*$/.test(className) ? className : name;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    try {
      return String(value);
    } catch {
      return Object.prototype.toString.call(value);
    }
  }
}

/** The base class `adapterErrorClass` makes: an `AgentloopError` with a fixed `name`, and its own `isInstance`. */
export interface AdapterErrorClass<Name extends string> {
  new (message: string, options?: ErrorOptions): AgentloopError & { readonly name: Name };
  /** Whether `value` is an error of this class, from this copy of the library or another. */
  isInstance<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T;
}

/**
 * The base of an adapter's own error class named `name` (`class OpenAIStreamError extends
 * adapterErrorClass("OpenAIStreamError") {}`), so that every adapter's errors are told apart alike.
 */
export function adapterErrorClass<const Name extends string>(name: Name): AdapterErrorClass<Name> {
  return class extends AgentloopError {
    override readonly name: Name = name;

    static override isInstance<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
      return isBranded(value, name);
    }
  };
}
