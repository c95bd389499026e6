import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createActor, initialTransition, toPromise, transition } from "xstate";
import {
  type AgentResult,
  agentMachine,
  countTokens,
  final,
  type Message,
  type Model,
  type ModelReply,
  runAgent,
  scriptedModel,
  type ToolCall,
  ToolRegistry,
} from "../src/index.js";
import {
  type AgentEvent,
  type AgentMachineInput,
  type AgentSnapshot,
  DEFAULT_SYSTEM,
  driveEffects,
  messagesOf,
  resolveSettings,
} from "../src/machine.js";
import { STATE_OF, traceProblem } from "./trace.js";

/** What should happen to a call: its function runs and returns, runs and throws, or never runs. */
type Kind = "returns" | "throws" | "invalid" | "unknown";
interface PlannedCall {
  readonly call: ToolCall;
  readonly kind: Kind;
}
interface PlannedReply {
  readonly reply: ModelReply;
  readonly calls: readonly PlannedCall[];
}
interface Plan {
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

interface Execution {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

const TOOL_NAMES = ["add", "boom", "echo", "flag"];

/** A fresh registry with four small tools, and the log of every function that really ran. */
function makeRegistry(): { registry: ToolRegistry; executions: Execution[] } {
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
function expectedContent(call: ToolCall): string {
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

const planArb: fc.Arbitrary<Plan> = fc.record({
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

function scriptOf(plan: Plan): PlannedReply[] {
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

function inputOf(plan: Plan, registry: ToolRegistry, model: Model): AgentMachineInput {
  return { settings: resolveSettings(plan.task, model, registry, optionsOf(plan)) };
}

/**
 * The ids the run gives the calls of the first `steps` replies, by the documented rule: a call keeps
 * the model's id unless it is blank or used already in the run; otherwise it gets
 * `call_<position>_<index>` (the reply's place in the list, the call's in the reply), followed by
 * `_1`, `_2`, … while that is taken.
 */
function assignedIds(script: readonly PlannedReply[], steps: number): string[][] {
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
function assistantWith(planned: PlannedReply, ids: readonly string[] = []): Message {
  const toolCalls = planned.calls.map(({ call }, j) => ({ ...call, id: ids[j] ?? call.id }));
  return { role: "assistant", content: planned.reply.content, toolCalls };
}

function assistantOf(reply: ModelReply): Message {
  return { role: "assistant", content: reply.content, toolCalls: reply.toolCalls };
}

/**
 * The events the effects produced in `result`, as they could have come: each reply the machine took
 * (with the ids the run gave its calls), then the results of its calls in an order drawn from
 * `seed`: calls are taken up in call order while fewer than `cap` run, and any running call may
 * finish next.
 */
function eventsOf(result: AgentResult, cap: number, seed: number): AgentEvent[] {
  const events: AgentEvent[] = [];
  let draw = seed;
  const random = (n: number) => {
    draw = (draw * 1_103_515_245 + 12_345) % 2 ** 31;
    return draw % n;
  };
  let at = 2;
  for (let step = 0; step < result.steps; step++) {
    const assistant = result.messages[at];
    if (assistant?.role !== "assistant") throw new Error(`message ${at} is not the assistant's`);
    events.push({ type: "model.replied", reply: { content: assistant.content, toolCalls: assistant.toolCalls } });
    const results: AgentEvent[] = assistant.toolCalls.map((call, j) => {
      const message = result.messages[at + 1 + j];
      const content = message?.role === "tool" ? message.content : "missing tool message";
      return { type: "tool.finished", callId: call.id, content };
    });
    const running: AgentEvent[] = [];
    while (results.length > 0 || running.length > 0) {
      while (results.length > 0 && running.length < cap) running.push(results.shift() as AgentEvent);
      events.push(...running.splice(random(running.length), 1));
    }
    at += 1 + assistant.toolCalls.length;
  }
  return events;
}

async function run(plan: Plan) {
  const { registry, executions } = makeRegistry();
  const model = scriptedModel(scriptOf(plan).map((p) => p.reply));
  const result = await runAgent(plan.task, model, registry, optionsOf(plan));
  return { result, seen: model.seen, executions, specs: registry.specs() };
}

describe("runAgent over random model scripts", () => {
  it("pairs one tool message with each call, keeps the limits, recounts its tokens and runs every valid call, repeats too", async () => {
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const { result, seen, executions, specs } = await run(plan);
        const script = scriptOf(plan);
        const n = result.steps;

        // One step = one model call, never more than maxSteps.
        expect(seen.length).toBe(n);
        expect(n).toBeLessThanOrEqual(plan.maxSteps);

        // The list: system, task, then each assistant message followed by exactly its calls' tool messages.
        const { messages } = result;
        expect(messages[0]).toEqual({ role: "system", content: plan.system ?? DEFAULT_SYSTEM });
        expect(messages[1]).toEqual({ role: "user", content: plan.task });
        const ran: Execution[] = [];
        const ids = assignedIds(script, n);
        let at = 2;
        let spent = 0;
        for (const [i, planned] of script.slice(0, n).entries()) {
          // The model was shown exactly the list so far: a prefix of the final list, 2 + everything before.
          expect(seen[i]).toEqual(messages.slice(0, at));
          const prompt = countTokens(specs) + countTokens(seen[i]);
          expect(spent + prompt).toBeLessThanOrEqual(plan.tokenBudget); // checked BEFORE the call
          // The run's ids: the model's, unless blank or taken; the calls are the model's otherwise.
          const assistant = assistantWith(planned, ids[i]);
          spent += prompt + countTokens(assistant);
          expect(messages[at]).toEqual(assistant);
          at += 1;
          for (const [j, { call, kind }] of planned.calls.entries()) {
            const message = messages[at];
            const content = message?.role === "tool" ? message.content : "";
            // A failure is marked as one: the trace of a log of schema 2.
            expect(message).toEqual({
              role: "tool",
              toolCallId: ids[i]?.[j],
              name: call.name,
              content: expect.any(String),
              ...(content.startsWith("ERROR:") ? { isError: true } : {}),
            });
            // With the spec's defaults nothing is refused as a repeat: the same call again runs again.
            if (kind === "returns") {
              expect(content).toBe(expectedContent(call));
              ran.push({ name: call.name, args: call.args });
            } else if (kind === "throws") {
              expect(content).toMatch(/^ERROR: .*RangeError.*boom went the tool/);
              ran.push({ name: call.name, args: call.args });
            } else if (kind === "invalid") {
              expect(content).toMatch(/^ERROR: /);
              expect(content).toContain(`${call.name} expects`);
            } else {
              expect(content).toMatch(/^ERROR: .*unknown tool/);
              for (const name of TOOL_NAMES) expect(content).toContain(`'${name}'`);
            }
            at += 1;
          }
        }
        expect(messages.length).toBe(at);
        expect(traceProblem(messages)).toBeNull();

        // Nothing ran for an invalid or unknown call; every valid call that was reached ran once, taken up in call
        // order whatever the concurrency.
        expect(executions).toEqual(ran);
        // Ids are unique in the run, so a decision or a result can be given to one call only.
        expect(new Set(ids.flat()).size).toBe(ids.flat().length);

        // Tokens: every prompt plus every reply, recounted from what the model was shown.
        expect(result.tokens).toBe(spent);
        const lastReply = n === 0 ? 0 : countTokens(messages.filter((m) => m.role === "assistant").at(-1));
        // The check is before the call and the reply is not reserved: only the last reply can overspend.
        expect(result.tokens).toBeLessThanOrEqual(plan.tokenBudget + lastReply);

        // The status says which exit was taken, and only `done` has an answer.
        const last = script[n - 1];
        if (result.status === "done") {
          expect(last?.calls).toEqual([]);
          expect(result.answer).toBe(last?.reply.content);
        } else {
          expect(result.answer).toBeNull();
          expect(n === 0 || (last?.calls.length ?? 0) > 0).toBe(true);
        }
        if (result.status === "step_limit") expect(n).toBe(plan.maxSteps);
        if (result.status === "token_budget") {
          expect(n).toBeLessThan(plan.maxSteps);
          expect(spent + countTokens(specs) + countTokens(messages)).toBeGreaterThan(plan.tokenBudget);
        }

        // Messages are frozen: nothing can edit them after they were appended.
        for (const message of messages) {
          expect(Object.isFrozen(message)).toBe(true);
          expect(Reflect.set(message, "content", "edited")).toBe(false);
        }
      }),
      { numRuns: 120 },
    );
  });

  it("ends in the state its status names, one call at a time or not, and a bare actor driven by driveEffects gives the same output", async () => {
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const { result } = await run(plan);
        const { registry } = makeRegistry();
        const model = scriptedModel(scriptOf(plan).map((p) => p.reply));
        const input = inputOf(plan, registry, model);
        const actor = createActor(agentMachine, { input });
        const output = toPromise(actor);
        const failures: unknown[] = [];
        driveEffects(actor, { model, registry }, (error) => failures.push(error));
        actor.start();
        expect(await output).toEqual(result);
        expect(failures).toEqual([]);
        const snapshot = actor.getSnapshot();
        expect(snapshot.status).toBe("done");
        expect(snapshot.value).toBe(STATE_OF[result.status]);
        expect(snapshot.context.status).toBe(result.status);
        expect(snapshot.context.answer !== null).toBe(result.status === "done");
        // However many calls may run at once, the result is the same.
        const serial = { ...plan, toolConcurrency: 1 };
        expect((await run(serial)).result).toEqual(result);
      }),
      { numRuns: 80 },
    );
  });

  it("the reply is not reserved: a budget of exactly the first prompt still lets a long answer through", async () => {
    const { registry } = makeRegistry();
    const model = scriptedModel([final("x".repeat(400))]);
    const first =
      countTokens(registry.specs()) +
      countTokens([
        { role: "system", content: DEFAULT_SYSTEM },
        { role: "user", content: "t" },
      ]);
    const result = await runAgent("t", model, registry, { tokenBudget: first });
    expect(result.status).toBe("done");
    expect(result.tokens).toBeGreaterThan(first);
    const stopped = await runAgent("t", scriptedModel([final("never")]), registry, { tokenBudget: first - 1 });
    expect([stopped.status, stopped.steps, stopped.tokens]).toEqual(["token_budget", 0, 0]);
  });
});

/** Where the open reply stands in the events folded so far, computed from the events alone. */
interface Open {
  /** The calls of the last reply. */
  readonly calls: readonly ToolCall[];
  /** The results folded so far for them, by id (ids are unique in a run). */
  readonly finished: ReadonlyMap<string, string>;
}

function toolMessage(call: ToolCall, content: string): Message {
  const message = { role: "tool", toolCallId: call.id, name: call.name, content } as const;
  return content.startsWith("ERROR:") ? { ...message, isError: true } : message;
}

/** The tool messages due when the results in `after` are known and those in `before` were: the answered calls at the head of the reply, in call order. */
function dueMessages(
  calls: readonly ToolCall[],
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
) {
  const head = (finished: ReadonlyMap<string, string>) => {
    const at = calls.findIndex((c) => !finished.has(c.id));
    return at === -1 ? calls.length : at;
  };
  return calls.slice(head(before), head(after)).map((c) => toolMessage(c, after.get(c.id) as string));
}

/** The open reply after `event`. */
function afterEvent(open: Open, event: AgentEvent): Open {
  if (event.type === "model.replied") return { calls: event.reply.toolCalls, finished: new Map() };
  if (event.type !== "tool.finished") return open;
  return { calls: open.calls, finished: new Map([...open.finished, [event.callId, event.content]]) };
}

/** The messages `event` adds to the list, by the rules: a reply's message; a result's, once the calls before it have theirs. */
function addedBy(open: Open, event: AgentEvent): Message[] {
  if (event.type === "model.replied") return [assistantOf(event.reply)];
  return dueMessages(open.calls, open.finished, afterEvent(open, event).finished);
}

interface Taken {
  readonly snapshot: AgentSnapshot;
  /** A deep copy of the snapshot's message list, made when it was taken. */
  readonly copy: Message[];
  readonly open: Open;
}

function take(snapshot: AgentSnapshot, open: Open): Taken {
  return { snapshot, copy: structuredClone([...messagesOf(snapshot.context.transcript)]), open };
}

/** The event that forks a run at `snapshot`: a different answer, or a different result for the first call of the reply still open. */
function forkEvent(at: Taken, label: string): AgentEvent | null {
  if (at.snapshot.value === "callingModel") return { type: "model.replied", reply: final(label) };
  const head = at.open.calls.find((c) => !at.open.finished.has(c.id));
  if (!at.snapshot.matches({ executingTools: "runningTools" }) || head === undefined) return null;
  return { type: "tool.finished", callId: head.id, content: label };
}

interface Fork {
  readonly snapshot: AgentSnapshot;
  readonly expected: readonly Message[];
}

/** Steps `at` with a fork event; the fork's list must be `at`'s list plus the messages the rules say it adds. */
function forkFrom(at: Taken, label: string): Fork {
  const event = forkEvent(at, label);
  expect(event).not.toBeNull();
  if (event === null) return { snapshot: at.snapshot, expected: at.copy };
  return {
    snapshot: transition(agentMachine, at.snapshot, event)[0],
    expected: [...at.copy, ...addedBy(at.open, event)],
  };
}

describe("pure stepping over random runs", () => {
  it("folding a run's events, its results in any order, rebuilds it with no effects; every snapshot keeps its own list, forks included", async () => {
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const { result } = await run(plan);
        const { registry, executions } = makeRegistry();
        const model = () => {
          throw new Error("pure stepping must not call the model");
        };
        const input = inputOf(plan, registry, model);
        const events = eventsOf(result, plan.toolConcurrency ?? Number.POSITIVE_INFINITY, plan.finishOrder);

        // Fold the run; at one point fork the newest snapshot FIRST, then go on with the original event.
        const forks: Fork[] = [];
        const forkAt = events.length === 0 ? -1 : plan.forkAt % events.length;
        let open: Open = { calls: [], finished: new Map() };
        const taken = [take(initialTransition(agentMachine, input)[0], open)];
        for (const [i, event] of events.entries()) {
          const head = taken.at(-1) as Taken;
          if (i === forkAt) forks.push(forkFrom(head, "fork at the head"));
          const next = transition(agentMachine, head.snapshot, event)[0];
          // Append-only: the later list holds the very same (frozen) message objects, then what the event adds.
          const before = messagesOf(head.snapshot.context.transcript);
          const after = messagesOf(next.context.transcript);
          before.forEach((message, k) => {
            expect(after[k]).toBe(message);
          });
          expect(after.slice(before.length)).toEqual(addedBy(open, event));
          open = afterEvent(open, event);
          taken.push(take(next, open));
        }
        const end = taken.at(-1)?.snapshot;
        expect(end?.status).toBe("done");
        expect(end?.value).toBe(STATE_OF[result.status]);
        expect(end?.output).toEqual(result);
        expect(executions).toEqual([]);

        // Fork twice more from an earlier snapshot, after the run went on past it.
        const active = taken.filter((t) => t.snapshot.status === "active");
        const early = active[plan.forkAt % Math.max(1, active.length)];
        if (early !== undefined) forks.push(forkFrom(early, "fork A"), forkFrom(early, "fork B"));

        // No snapshot, of the run or of a fork, sees another's messages.
        for (const { snapshot, copy } of taken) expect(messagesOf(snapshot.context.transcript)).toEqual(copy);
        for (const fork of forks) expect(messagesOf(fork.snapshot.context.transcript)).toEqual(fork.expected);
        expect(end?.output).toEqual(result);
      }),
      { numRuns: 100 },
    );
  });
});
