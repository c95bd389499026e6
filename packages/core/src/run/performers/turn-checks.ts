import type { AgentRequest, GuardrailChecked, Guardrails, OutputChecked, TurnChecks } from "../../data/index.js";
import { describeValue } from "../../data/index.js";
import type { ArgsOf, ToolSchema } from "../../tools/index.js";
import { isTimeout, MAX_TIMER_MS } from "../../tools/index.js";
import { checkGuardrail } from "./check-guardrail.js";
import { compileOutput, type OutputSchema } from "./check-output.js";
import type { EventAnswer } from "./event-answer.js";

/** The options of one turn of a run: the answer's shape and the guardrails around it. */
export interface TurnOptions<Output extends ToolSchema = ToolSchema> {
  /** The answer's shape: a Standard Schema (zod), `jsonSchema(...)`, or JSON Schema with an object root. */
  readonly output?: Output;
  /** Invalid answers the model may correct in a turn before it ends `invalid_output` (default 2). */
  readonly outputRetries?: number;
  /** Checks of the user's message before the turn's first model call (`input`) and of the answer before `done` (`output`). */
  readonly guardrails?: Guardrails;
}

/** The type of `result.output` for an `output` schema: a Standard Schema's output, a literal JSON Schema's type, else `unknown`. */
export type OutputOf<Output> = [Output] extends [never]
  ? unknown
  : [ArgsOf<Output>] extends [never]
    ? unknown
    : ArgsOf<Output>;

/** What performs a turn's checks: the compiled answer schema and the guardrails. */
export interface TurnPorts {
  readonly output?: OutputSchema | undefined;
  readonly guardrails?: Guardrails | undefined;
}

/** The checks of a turn that has none: nothing logged, nothing to perform. */
export const NO_CHECKS: TurnChecks = Object.freeze({});
const UNCHECKED = Object.freeze({ checks: NO_CHECKS, ports: Object.freeze({}) });

/** A check's answer: the event it logs. */
export type CheckAnswer = EventAnswer<OutputChecked> | EventAnswer<GuardrailChecked>;

/**
 * A turn's options, checked and split into what is logged (the JSON Schema, the retries, the
 * guardrails' names) and what performs the checks. Throws a `TypeError`, `RangeError` or
 * `ToolSchemaError` before anything runs.
 */
export function resolveTurn(options: TurnOptions): { checks: TurnChecks; ports: TurnPorts } {
  const { outputRetries, guardrails } = options;
  if (options.output === undefined && outputRetries === undefined && guardrails === undefined) return UNCHECKED;
  if (outputRetries !== undefined && !(Number.isSafeInteger(outputRetries) && outputRetries >= 0)) {
    throw new RangeError(`outputRetries must be a whole number, 0 or more; got ${describeValue(outputRetries, true)}`);
  }
  const output = options.output === undefined ? undefined : compileOutput(options.output);
  const names = guardrails === undefined ? undefined : guardrailNames(guardrails);
  const checks: TurnChecks = {
    ...(output === undefined ? {} : { output: { schema: output.schema } }),
    ...(output === undefined || outputRetries === undefined ? {} : { outputRetries }),
    ...(names === undefined ? {} : { guardrails: names }),
  };
  return { checks, ports: { output, guardrails } };
}

function guardrailNames(guardrails: Guardrails): { input: string[]; output: string[] } | undefined {
  if (typeof guardrails !== "object" || guardrails === null) {
    throw new TypeError(`guardrails must be an object { input, output }; got ${describeValue(guardrails, true)}`);
  }
  const names = { input: stageNames(guardrails, "input"), output: stageNames(guardrails, "output") };
  return names.input.length + names.output.length === 0 ? undefined : names;
}

function stageNames(guardrails: Guardrails, stage: "input" | "output"): string[] {
  const list = guardrails[stage] ?? [];
  if (!Array.isArray(list))
    throw new TypeError(`guardrails.${stage} must be an array; got ${describeValue(list, true)}`);
  return list.map((guardrail, index) => {
    if (typeof guardrail?.name !== "string" || guardrail.name === "" || typeof guardrail.check !== "function") {
      throw new TypeError(`guardrails.${stage}[${index}] must have a name and a check function`);
    }
    const { timeoutMs } = guardrail;
    // Unchecked, a timer given one of these fires at once: every check would trip.
    if (timeoutMs !== undefined && !(typeof timeoutMs === "number" && isTimeout(timeoutMs))) {
      throw new RangeError(
        `guardrails.${stage}[${index}].timeoutMs must be milliseconds above 0 and at most ${MAX_TIMER_MS}, or Infinity; got ${describeValue(timeoutMs, true)}`,
      );
    }
    return guardrail.name;
  });
}

/** Performs a check the machine asks for; rejects only when the turn was not given what the log says it checks. */
export async function performCheck(
  request: Extract<AgentRequest, { type: "checkOutput" | "checkGuardrail" }>,
  ports: TurnPorts | undefined,
  signal: () => AbortSignal | undefined,
): Promise<CheckAnswer> {
  if (request.type === "checkOutput") {
    const output = ports?.output;
    if (output === undefined) throw new TypeError("the run checks its answer: give its `output` schema again");
    return { type: "event", event: await output.check(request.text) };
  }
  const guardrail = ports?.guardrails?.[request.stage]?.[request.index];
  if (guardrail?.name !== request.name) {
    throw new TypeError(
      `the run checks with the ${request.stage} guardrail '${request.name}': give its guardrails again`,
    );
  }
  return { type: "event", event: await checkGuardrail(guardrail, request, signal) };
}
