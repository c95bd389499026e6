import type { Model, RetrySettings } from "../../data/index.js";

/** The backoff's first wait when `retry.initialDelayMs` is not given, in milliseconds. */
export const DEFAULT_RETRY_INITIAL_DELAY_MS = 1000;
/** The backoff's longest wait when `retry.maxDelayMs` is not given, in milliseconds. */
export const DEFAULT_RETRY_MAX_DELAY_MS = 30_000;

/** `retry` as a run is given it: attempts after a failure (per model), and the backoff's bounds in milliseconds. */
export interface RetryOptions {
  readonly attempts: number;
  readonly initialDelayMs?: number;
  readonly maxDelayMs?: number;
}

/**
 * The logged form of `retry` and `fallbackModels`: defaults filled in and every value checked,
 * or nothing when neither is given (a failure then ends the run at once, as it always did).
 * Throws a `TypeError` or `RangeError` with one line naming the option.
 */
export function resolveRetry(
  retry: RetryOptions | undefined,
  fallbackModels: readonly Model[] | undefined,
): { retry?: RetrySettings; fallbackModels?: number } {
  const fallbacks = checkFallbacks(fallbackModels);
  if (retry === undefined) return fallbacks === 0 ? {} : { fallbackModels: fallbacks };
  if (typeof retry !== "object" || retry === null) {
    throw new TypeError(`retry must be an object { attempts, initialDelayMs?, maxDelayMs? }; got ${String(retry)}`);
  }
  const attempts = whole("retry.attempts", retry.attempts);
  const initialDelayMs = whole("retry.initialDelayMs", retry.initialDelayMs ?? DEFAULT_RETRY_INITIAL_DELAY_MS);
  const maxDelayMs = whole(
    "retry.maxDelayMs",
    retry.maxDelayMs ?? Math.max(initialDelayMs, DEFAULT_RETRY_MAX_DELAY_MS),
  );
  if (maxDelayMs < initialDelayMs) {
    throw new RangeError(`retry.maxDelayMs (${maxDelayMs}) must be at least retry.initialDelayMs (${initialDelayMs})`);
  }
  const settings = { retry: { attempts, initialDelayMs, maxDelayMs } };
  return fallbacks === 0 ? settings : { ...settings, fallbackModels: fallbacks };
}

function checkFallbacks(models: readonly Model[] | undefined): number {
  if (models === undefined) return 0;
  if (!Array.isArray(models)) throw new TypeError("fallbackModels must be a list of models");
  const bad = models.findIndex((model) => typeof model !== "function");
  if (bad >= 0) throw new TypeError(`fallbackModels[${bad}] must be a model (a function); got ${typeof models[bad]}`);
  return models.length;
}

function whole(name: string, value: unknown): number {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number; got ${typeof value}`);
  if (Number.isSafeInteger(value) && value >= 0) return value;
  throw new RangeError(`${name} must be a whole number, 0 or more; got ${value}`);
}
