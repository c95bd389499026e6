import fc from "fast-check";
import {
  final,
  type Message,
  type Model,
  type ModelReply,
  runAgent,
  scriptedModel,
  type ToolCall,
  ToolRegistry,
} from "../../src/index.js";
import { type AgentMachineInput, resolveSettings } from "../../src/machine.js";

/**
 * Random model scripts for the spec's properties: calls that return, throw, are invalid or name no
 * tool, with ids blank, repeated or of the run's own shape, under random limits and concurrency caps.
 */

/** What should happen to a call: its function runs and returns, runs and throws, or never runs. */
export type Kind = "returns" | "throws" | "invalid" | "unknown";
export interface PlannedCall {
  readonly call: ToolCall;
  readonly kind: Kind;
}
export interface PlannedReply {
  readonly reply: ModelReply;
  readonly calls: readonly PlannedCall[];
}
export interface Plan {
  readonly task: string;
  readonly system: string | null;
  /** The model's script; a final answer follows it, so the script never runs out. */
  readonly replies: readonly PlannedReply[];
  readonly maxSteps: number;
  readonly tokenBudget: number;
  /** How many calls of a reply may run at once (absent: the default, all of them); never changes a result. */
  readonly toolConcurrency: number | undefined;
  /** Where the copy-on-write check forks the run (modulo the number of snapshots). */
  readonly forkAt: number;
  /** The order the results of each reply's calls are folded in, in the pure-stepping check (a seed). */
  readonly finishOrder: number;
}

export interface Execution {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

export const TOOL_NAMES = ["add", "boom", "echo", "flag"];

/** A fresh registry with four small tools, and the log of every function that really ran. */
export function makeRegistry(): { registry: ToolRegistry; executions: Execution[] } {
  const executions: Execution[] = [];
  const registry = new ToolRegistry();
  const ran = (name: string, args: Record<string, unknown>) => executions.push({ name, args: structuredClone(args) });
  const text = { type: "object", properties: { text: { type: "string" } }, required: ["text"] } as const;
  registry.register("echo", "Echoes a text.", text, (args: { text: string }) => {
    ran("echo", args);
    return { echo: args.text };
  });
  const sum = {
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "number" } },
    required: ["a"],
  } as const;
  registry.register("add", "Adds b to the whole number a.", sum, (args: { a: number; b?: number }) => {
    ran("add", args);
    return args.a + (args.b ?? 0);
  });
  registry.register(
    "flag",
    "Reads a switch.",
    { type: "object", properties: { on: { type: "boolean" } } },
    (args: { on?: boolean }) => {
      ran("flag", args);
      return { on: args.on ?? null };
    },
  );
  registry.register("boom", "Always fails.", { type: "object" }, (args: Record<string, unknown>) => {
    ran("boom", args);
    throw new RangeError("boom went the tool");
  });
  return { registry, executions };
}

/** What a function that returns gives back, as JSON: computed here, not by the tool. */
export function expectedContent(call: ToolCall): string {
  const { args } = call;
  if (call.name === "echo") return JSON.stringify({ echo: args.text });
  if (call.name === "add") return JSON.stringify(Number(args.a) + Number(args.b ?? 0));
  return JSON.stringify({ on: args.on ?? null });
}

const textArb = fc.string({ maxLength: 24 });
// Blank and repeated ids, and ids of the shape the run gives in their place, come up often.
const idArb = fc.oneof(
  fc.constantFrom("", " ", "c1", "dup", "call_0", "call_2_0", "call_3_1"),
  fc.string({ maxLength: 8 }),
);
/** A finite double, never -0 (JSON would turn it into 0). */
const numberArb = fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => x + 0);

type Shape = { readonly name: string; readonly args: Record<string, unknown>; readonly kind: Kind };
const shape =
  (kind: Kind) =>
  (c: { name: string; args: Record<string, unknown> }): Shape => ({ ...c, kind });

const validArb: fc.Arbitrary<Shape> = fc.oneof(
  textArb.map((text) => ({ name: "echo", args: { text } })).map(shape("returns")),
  fc
    .record({ a: fc.integer(), b: numberArb }, { requiredKeys: ["a"] })
    .map((args) => ({ name: "add", args }))
    .map(shape("returns")),
  fc
    .record({ on: fc.boolean() }, { requiredKeys: [] })
    .map((args) => ({ name: "flag", args }))
    .map(shape("returns")),
  fc.constant({ name: "boom", args: {} }).map(shape("throws")),
);

const invalidArb: fc.Arbitrary<Shape> = fc
  .oneof(
    fc.constant({ name: "echo", args: {} }), // a required argument is missing
    textArb.map((text) => ({ name: "echo", args: { text, extra: 1 } })), // an argument not in the schema
    fc.integer().map((n) => ({ name: "echo", args: { text: n } })), // a number where a string is needed
    fc.integer().map((n) => ({ name: "add", args: { a: n + 0.5 } })), // not a whole number
    fc.constant({ name: "add", args: { a: true } }), // a boolean is not a number
    fc.constant({ name: "flag", args: { on: "yes" } }), // a string is not a boolean
    fc.constant({ name: "boom", args: { now: true } }), // an argument for a tool that takes none
  )
  .map(shape("invalid"));

const unknownArb: fc.Arbitrary<Shape> = fc
  .tuple(fc.constantFrom("nope", "Echo", "", "echo ", "__proto__", "constructor", "toString"), textArb)
  .map(([name, text]) => ({ name, args: { text } }))
  .map(shape("unknown"));

const callArb: fc.Arbitrary<PlannedCall> = fc
  .tuple(idArb, fc.oneof({ arbitrary: validArb, weight: 2 }, invalidArb, unknownArb))
  .map(([id, { name, args, kind }]) => ({ call: { id, name, args }, kind }));

/** The same call two to four times in one reply, under one id: with the spec's defaults, every one of them runs. */
const repeatArb: fc.Arbitrary<PlannedCall[]> = fc
  .tuple(callArb, fc.integer({ min: 2, max: 4 }))
  .map(([planned, times]) => Array.from({ length: times }, () => planned));

const replyArb: fc.Arbitrary<PlannedReply> = fc.oneof(
  {
    arbitrary: fc
      .tuple(textArb, fc.oneof({ arbitrary: fc.array(callArb, { minLength: 1, maxLength: 3 }), weight: 4 }, repeatArb))
      .map(([content, calls]) => ({
        reply: { content, toolCalls: calls.map((c) => c.call) },
        calls,
      })),
    weight: 5,
  },
  { arbitrary: textArb.map((content) => ({ reply: final(content), calls: [] })), weight: 1 },
);

export const planArb: fc.Arbitrary<Plan> = fc.record({
  task: textArb,
  system: fc.option(textArb),
  // Unbiased sizes and limits: fast-check's bias towards small values would end most runs at step 0.
  replies: fc.noBias(fc.array(replyArb, { maxLength: 11 })),
  maxSteps: fc.noBias(fc.integer({ min: 0, max: 10 })),
  // Half of the budgets are small enough to stop a run of a few steps.
  tokenBudget: fc.oneof(fc.noBias(fc.integer({ min: 0, max: 6000 })), fc.noBias(fc.integer({ min: 0, max: 1500 }))),
  toolConcurrency: fc.constantFrom(undefined, 1, 2, 3, Number.POSITIVE_INFINITY),
  forkAt: fc.nat(),
  finishOrder: fc.nat(),
});

const LAST: PlannedReply = { reply: final("the end"), calls: [] };

export function scriptOf(plan: Plan): PlannedReply[] {
  return [...plan.replies, LAST];
}

function optionsOf(plan: Plan) {
  const { system, maxSteps, tokenBudget, toolConcurrency } = plan;
  return {
    maxSteps,
    tokenBudget,
    ...(system === null ? {} : { system }),
    ...(toolConcurrency === undefined ? {} : { toolConcurrency }),
  };
}

export function inputOf(plan: Plan, registry: ToolRegistry, model: Model): AgentMachineInput {
  return { settings: resolveSettings(plan.task, model, registry, optionsOf(plan)) };
}

/**
 * The ids the run gives the calls of the first `steps` replies, by the documented rule: a call keeps
 * the model's id unless it is blank or used already in the run; otherwise it gets
 * `call_<position>_<index>` (the reply's place in the list, the call's in the reply), followed by
 * `_1`, `_2`, … while that is taken.
 */
export function assignedIds(script: readonly PlannedReply[], steps: number): string[][] {
  const taken = new Set<string>();
  let position = 2;
  return script.slice(0, steps).map(({ calls }) => {
    const ids = calls.map(({ call }, index) => {
      let id = call.id.trim() !== "" && !taken.has(call.id) ? call.id : `call_${position}_${index}`;
      for (let n = 1; taken.has(id); n++) id = `call_${position}_${index}_${n}`;
      taken.add(id);
      return id;
    });
    position += 1 + calls.length;
    return ids;
  });
}

/** The assistant message of a reply whose calls got `ids`. */
export function assistantWith(planned: PlannedReply, ids: readonly string[] = []): Message {
  const toolCalls = planned.calls.map(({ call }, j) => ({ ...call, id: ids[j] ?? call.id }));
  return { role: "assistant", content: planned.reply.content, toolCalls };
}

export function assistantOf(reply: ModelReply): Message {
  return { role: "assistant", content: reply.content, toolCalls: reply.toolCalls };
}

export async function run(plan: Plan) {
  const { registry, executions } = makeRegistry();
  const model = scriptedModel(scriptOf(plan).map((p) => p.reply));
  const result = await runAgent(plan.task, model, registry, optionsOf(plan));
  return { result, seen: model.seen, executions, specs: registry.specs() };
}
