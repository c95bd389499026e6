import { setTimeout as sleep } from "node:timers/promises";

/**
 * The spec's weather scenario, shared by every harness: the same task, the same two tools with the
 * same JSON schemas, and a fake model that decides from the length of the list it is shown only.
 * A run of `steps` steps makes `steps` model calls: `steps - 1` tool calls, then the answer. The
 * calls alternate `get_weather(Pune)` and `c_to_f(30)`, so no two in a row are the same (no
 * harness's repeat guard fires), and the 3-step run is the spec's happy path.
 */
export const TASK = "How hot is Pune in Fahrenheit?";
export const SYSTEM = "Use the tools to answer the user.";
export const ANSWER = "It is 86.0 F in Pune.";

/** Real tool executions in this process, over all harnesses; every measured run checks its share. */
export const executions = { count: 0 };

/** `get_weather`: name, description, JSON Schema and function, for each harness to wrap its own way. */
export const WEATHER_TOOL = {
  name: "get_weather",
  description: "Current temperature of one city in Celsius. Use it before any weather answer.",
  schema: {
    type: "object" as const,
    properties: { city: { type: "string" as const } },
    required: ["city"],
    additionalProperties: false as const,
  },
  execute({ city }: { city: string }): { city: string; celsius: number } {
    executions.count++;
    return { city, celsius: 30 };
  },
};

/** `c_to_f`, likewise. */
export const C_TO_F_TOOL = {
  name: "c_to_f",
  description: "Convert Celsius to Fahrenheit. Use it for every conversion.",
  schema: {
    type: "object" as const,
    properties: { celsius: { type: "number" as const } },
    required: ["celsius"],
    additionalProperties: false as const,
  },
  execute({ celsius }: { celsius: number }): number {
    executions.count++;
    return (celsius * 9) / 5 + 32;
  },
};

/** The `k`-th tool call of a run (0-based), with its arguments as an object and as JSON text. */
export interface ScenarioCall {
  readonly id: string;
  readonly name: "get_weather" | "c_to_f";
  readonly args: Readonly<Record<string, unknown>>;
  readonly json: string;
}

const WEATHER_ARGS = { city: "Pune" };
const C_TO_F_ARGS = { celsius: 30 };
const WEATHER_JSON = JSON.stringify(WEATHER_ARGS);
const C_TO_F_JSON = JSON.stringify(C_TO_F_ARGS);

export function callAt(k: number): ScenarioCall {
  return k % 2 === 0
    ? { id: `call_${k}`, name: "get_weather", args: WEATHER_ARGS, json: WEATHER_JSON }
    : { id: `call_${k}`, name: "c_to_f", args: C_TO_F_ARGS, json: C_TO_F_JSON };
}

/** What the `k`-th tool call returns, as JSON text. */
export function expectedOutput(k: number): string {
  return k % 2 === 0 ? JSON.stringify({ city: "Pune", celsius: 30 }) : "86";
}

/**
 * The fake model's one decision: given the number of tool results the list holds, the next call
 * to ask for, or `null` for the final answer. Waits `delayMs` milliseconds first when above 0.
 */
export async function decide(toolResults: number, steps: number, delayMs: number): Promise<ScenarioCall | null> {
  if (delayMs > 0) await sleep(delayMs);
  return toolResults < steps - 1 ? callAt(toolResults) : null;
}
