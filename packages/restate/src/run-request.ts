import { TerminalError } from "@restatedev/restate-sdk";
import type { AgentOptions } from "./core-port.js";
import type { AnswerRequest, CancelRequest, ChildRunRequest, DecideRequest, RunRequest } from "./types.js";

/** The options a submitted run may give with its task (each also applied by `agentWorkflow`). */
export const RUN_OPTIONS = [
  "system",
  "history",
  "maxSteps",
  "tokenBudget",
  "replyReserve",
  "repeatLimit",
  "onRepeatedCall",
  "toolConcurrency",
] as const;

const RUN_KEYS = new Set<string>(["task", ...RUN_OPTIONS]);

/**
 * The task and options of a submitted run, checked: a request that is not `{ task, ...options }`
 * is refused with a `TerminalError` (HTTP 400 at the ingress), which Restate does not retry.
 * `null` limits become Infinity; the limits' values are checked when the settings are resolved.
 */
export function readRunRequest(value: unknown): { readonly task: string; readonly options: AgentOptions } {
  if (!isObject(value))
    throw badRequest(`a run is submitted with an object { task, ...options }, got ${kindOf(value)}`);
  const unknown = Object.keys(value).find((key) => !RUN_KEYS.has(key));
  if (unknown !== undefined) {
    throw badRequest(`unknown run option '${unknown}' (known: ${[...RUN_KEYS].join(", ")})`);
  }
  const { task, system, tokenBudget, repeatLimit, toolConcurrency, ...rest } = value as unknown as RunRequest;
  if (typeof task !== "string") throw badRequest(`task must be a string, got ${kindOf(task)}`);
  if (system !== undefined && typeof system !== "string")
    throw badRequest(`system must be a string, got ${kindOf(system)}`);
  const options: AgentOptions = {
    ...rest,
    ...(system === undefined ? {} : { system }),
    ...(tokenBudget === undefined ? {} : { tokenBudget: tokenBudget ?? Number.POSITIVE_INFINITY }),
    ...(repeatLimit === undefined ? {} : { repeatLimit: repeatLimit ?? Number.POSITIVE_INFINITY }),
    ...(toolConcurrency === undefined ? {} : { toolConcurrency: toolConcurrency ?? Number.POSITIVE_INFINITY }),
  };
  return { task, options };
}

/** A child's run as its parent's workflow submits it, checked for its form (a parent always sends one that fits). */
export function readChildRequest(value: unknown): ChildRunRequest {
  if (!isObject(value) || !isObject(value.child)) throw badRequest(`a child run is submitted with { task, child }`);
  const { task, child } = value;
  const { tools, parent, chain, tokenBudget, costBudget } = child;
  const budgets = [tokenBudget, costBudget].every((budget) => budget === null || typeof budget === "number");
  const linked = isObject(parent) && typeof parent.runId === "string" && typeof parent.callId === "string";
  const named = Array.isArray(tools) && tools.every((name) => typeof name === "string");
  if (typeof task !== "string" || typeof chain !== "string" || !budgets || !linked || !named) {
    throw badRequest("a child run's link must be { tools, parent: { runId, callId }, chain, tokenBudget, costBudget }");
  }
  return value as unknown as ChildRunRequest;
}

/** A decision as `decide` takes it, checked. */
export function readDecideRequest(value: unknown): DecideRequest {
  if (!isObject(value)) throw badRequest(`decide takes an object { callId, approved, reason? }, got ${kindOf(value)}`);
  const { callId, approved, reason } = value;
  if (typeof callId !== "string") throw badRequest(`callId must be a string, got ${kindOf(callId)}`);
  if (typeof approved !== "boolean") throw badRequest(`approved must be true or false, got ${kindOf(approved)}`);
  if (reason !== undefined && typeof reason !== "string")
    throw badRequest(`reason must be a string, got ${kindOf(reason)}`);
  return reason === undefined ? { callId, approved } : { callId, approved, reason };
}

/** An answer as `answer` takes it, checked for its form (its fit to the question's shape is checked against the question). */
export function readAnswerRequest(value: unknown): AnswerRequest {
  if (!isObject(value)) throw badRequest(`answer takes an object { callId, answer }, got ${kindOf(value)}`);
  const { callId } = value;
  if (typeof callId !== "string") throw badRequest(`callId must be a string, got ${kindOf(callId)}`);
  if (!Object.hasOwn(value, "answer"))
    throw badRequest(`the answer to '${callId}' is missing: give { callId, answer }`);
  return { callId, answer: value.answer };
}

/** A cancellation as `cancel` takes it (nothing, or `{ reason }`), checked. */
export function readCancelRequest(value: unknown): CancelRequest {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw badRequest(`cancel takes nothing or an object { reason }, got ${kindOf(value)}`);
  const { reason } = value;
  if (reason !== undefined && typeof reason !== "string")
    throw badRequest(`reason must be a string, got ${kindOf(reason)}`);
  return reason === undefined ? {} : { reason };
}

/** A refusal of bad input: not retried, HTTP 400 at the ingress. */
export function badRequest(message: string): TerminalError {
  return new TerminalError(message, { errorCode: 400 });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value).slice(0, 40)}`.trimEnd();
}
