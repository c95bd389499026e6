import type { AgentRequest, Message, Model, StepPrepared, ToolChoice, ToolSpec } from "../../data/index.js";
import { describeValue, listView } from "../../data/index.js";
import type { EventAnswer } from "./event-answer.js";

type ModelWithLimits = Model & { readonly maxReplyTokens?: number };

/** What `prepareStep` may decide for one model call; every field left out keeps the run's setting. */
export interface StepSettings {
  /** The only tools offered in this call, by name; a call of any other gets the unknown-tool `ERROR:` observation. */
  readonly activeTools?: readonly string[];
  /** Which tools the model may call: `none` forces an answer, `required` a call, `{ name }` that tool. */
  readonly toolChoice?: ToolChoice;
  /** The model asked in this call (retries and `fallbackModels` apply to it as to the run's). */
  readonly model?: Model;
  /** Text added to the system prompt for this call only. */
  readonly system?: string;
}

/** What `prepareStep` is shown: the model call about to be made (from 1), the list so far, the tokens spent so far. */
export interface StepInput {
  readonly step: number;
  readonly messages: readonly Message[];
  readonly tokens: number;
  /** Aborts when the run is cancelled or stops. */
  readonly signal: AbortSignal;
}

/**
 * Decides the settings of each model call, before it is made (after the step limit and compaction,
 * before the budget check). What it returns is logged as `step.prepared`; replay, resume and fork
 * read the log and never call it again (except, on a resume cut off in the very call it prepared,
 * for the model it picked, which a log cannot hold).
 */
export type PrepareStep = (step: StepInput) => StepSettings | undefined | Promise<StepSettings | undefined>;

/** `prepareStep`'s answer: the event to log, and the model it picked. */
export type StepPreparedAnswer = EventAnswer<StepPrepared>;

type PrepareRequest = Extract<AgentRequest, { type: "prepareStep" }>;

/**
 * Asks `prepare` about the model call `request` is for and checks what it returns against the
 * run's tools. Rejects with its own failure, or with a `TypeError` or `RangeError` in one line for
 * settings that make no sense (unknown tool names, a `toolChoice` naming a tool not offered): the
 * run then rejects before the call, and nothing is logged, so it can be resumed.
 */
export async function prepareStepAnswer(
  prepare: PrepareStep,
  request: PrepareRequest,
  specs: readonly ToolSpec[],
  replyReserve: number,
  signal: AbortSignal,
): Promise<StepPreparedAnswer> {
  const { step, transcript, tokens } = request;
  const settings: unknown = await prepare({ step, messages: listView(transcript), tokens, signal });
  return checkedSettings(step, settings, specs, replyReserve);
}

/** Whether `prepareStep`'s value leaves the step as it is: nothing, or an object with no field set. */
export function leavesAlone(settings: unknown): boolean {
  if (settings === undefined || settings === null) return true;
  if (typeof settings !== "object" || Array.isArray(settings)) return false;
  const { activeTools, toolChoice, model, system } = settings as Record<string, unknown>;
  return activeTools === undefined && toolChoice === undefined && model === undefined && system === undefined;
}

/** `prepareStep`'s value for `step`, checked against the run's tools, as the answer to log. */
export function checkedSettings(
  step: number,
  settings: unknown,
  specs: readonly ToolSpec[],
  replyReserve: number,
): StepPreparedAnswer {
  const event: StepPrepared = { type: "step.prepared", step };
  if (settings === undefined || settings === null) return { type: "event", event };
  if (typeof settings !== "object" || Array.isArray(settings)) {
    throw new TypeError(
      `prepareStep for step ${step} must return an object or undefined; got ${describeValue(settings, true)}`,
    );
  }
  const { activeTools, toolChoice, model, system } = settings as Record<string, unknown>;
  const offered = checkActiveTools(step, activeTools, specs);
  const choice = checkToolChoice(step, toolChoice, offered ?? specs.map((spec) => spec.name));
  if (model !== undefined && typeof model !== "function") {
    throw new TypeError(
      `prepareStep for step ${step}: model must be a model (a function); got ${describeValue(model, true)}`,
    );
  }
  if (system !== undefined && typeof system !== "string") {
    throw new TypeError(`prepareStep for step ${step}: system must be a string; got ${describeValue(system, true)}`);
  }
  const picked = model as ModelWithLimits | undefined;
  const prepared: StepPrepared = {
    ...event,
    ...(offered === undefined ? {} : { activeTools: offered }),
    ...(choice === undefined ? {} : { toolChoice: choice }),
    ...(picked === undefined ? {} : { model: pickedModelName(picked), reserve: picked.maxReplyTokens ?? replyReserve }),
    ...(system === undefined ? {} : { system }),
  };
  return picked === undefined ? { type: "event", event: prepared } : { type: "event", event: prepared, model: picked };
}

/** The name a picked model is logged by: its `modelName` (adapters set it), else `(unnamed)`. */
export function pickedModelName(model: Model): string {
  const name = (model as { readonly modelName?: unknown }).modelName;
  return typeof name === "string" && name !== "" ? name : "(unnamed)";
}

function checkActiveTools(step: number, value: unknown, specs: readonly ToolSpec[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) {
    throw new TypeError(
      `prepareStep for step ${step}: activeTools must be a list of tool names; got ${describeValue(value, true)}`,
    );
  }
  const names = new Set(specs.map((spec) => spec.name));
  const unknown = value.filter((name) => !names.has(name));
  if (unknown.length > 0) {
    throw new RangeError(
      `prepareStep for step ${step} names tools the registry does not have: ${unknown.map((name) => `'${name}'`).join(", ")} (tools: ${[...names].join(", ") || "none"})`,
    );
  }
  return [...new Set(value as string[])];
}

function checkToolChoice(step: number, value: unknown, offered: readonly string[]): ToolChoice | undefined {
  if (value === undefined || value === "auto" || value === "required" || value === "none") return value;
  const name = typeof value === "object" && value !== null ? (value as { name?: unknown }).name : undefined;
  if (typeof name !== "string") {
    throw new TypeError(
      `prepareStep for step ${step}: toolChoice must be 'auto', 'required', 'none' or { name }; got ${describeValue(value, true)}`,
    );
  }
  if (!offered.includes(name)) {
    throw new RangeError(
      `prepareStep for step ${step}: toolChoice names '${name}', which is not offered in this step (offered: ${offered.join(", ") || "none"})`,
    );
  }
  return { name };
}
