import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createActor, initialTransition, type SnapshotFrom, toPromise, transition } from "xstate";
import {
  type AgentInput,
  type AgentResult,
  agentMachine,
  countTokens,
  final,
  type Message,
  type ModelReply,
  runAgent,
  scriptedModel,
  type ToolCall,
  ToolRegistry,
} from "../src/index.js";
import { type AgentEvent, DEFAULT_SYSTEM, driveEffects, messagesOf } from "../src/machine.js";
import { STATE_OF, traceProblem } from "./trace.js";

type AgentSnapshot = SnapshotFrom<typeof agentMachine>;

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
  /** Where the copy-on-write check forks the run (modulo the number of snapshots). */
  readonly forkAt: number;
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
const idArb = fc.oneof(fc.constantFrom("", "c1", "dup", "call_0"), fc.string({ maxLength: 8 }));
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

/** The same call two to four times in one reply (ids apart): the third in a row is refused as a repeat. */
const repeatArb: fc.Arbitrary<PlannedCall[]> = fc
  .tuple(callArb, fc.integer({ min: 2, max: 4 }))
  .map(([planned, times]) =>
    Array.from({ length: times }, (_, i) => ({ ...planned, call: { ...planned.call, id: `${planned.call.id}${i}` } })),
  );

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
  forkAt: fc.nat(),
});

const LAST: PlannedReply = { reply: final("the end"), calls: [] };

function scriptOf(plan: Plan): PlannedReply[] {
  return [...plan.replies, LAST];
}

function inputOf(plan: Plan, registry: ToolRegistry, model: AgentInput["model"]): AgentInput {
  const { task, system, maxSteps, tokenBudget } = plan;
  return system === null
    ? { task, model, registry, maxSteps, tokenBudget }
    : { task, model, registry, maxSteps, tokenBudget, system };
}

function assistantOf(reply: ModelReply): Message {
  return { role: "assistant", content: reply.content, toolCalls: reply.toolCalls };
}

/** A call's identity for repeats, computed here: its tool and its arguments with their keys sorted (they are flat). */
function keyOf(call: ToolCall): string {
  return JSON.stringify([call.name, Object.entries(call.args).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
}

/**
 * For each call of the first `steps` replies, whether it is refused as a repeat: the third identical call in
 * a row (the default `repeatLimit`), whatever happened to the calls before it.
 */
function refusals(script: readonly PlannedReply[], steps: number): boolean[][] {
  let last: string | null = null;
  let inARow = 0;
  return script.slice(0, steps).map((planned) =>
    planned.calls.map(({ call }) => {
      const key = keyOf(call);
      const refused = key === last && inARow + 1 >= 3;
      inARow = key === last ? inARow + 1 : 1;
      last = key;
      return refused;
    }),
  );
}

const REPEAT_REFUSAL = (name: string) =>
  `ERROR: ${name} was asked for with the same arguments 3 times in a row, so it was not run again: the result would not change. Use the result you already have, call it with different arguments, or answer.`;

/** The events the effects produced in `result`: each reply the machine took, then each result of a call that ran. */
function eventsOf(plan: Plan, result: AgentResult): AgentEvent[] {
  const script = scriptOf(plan);
  const refused = refusals(script, result.steps);
  const events: AgentEvent[] = [];
  let at = 2;
  for (const [i, planned] of script.slice(0, result.steps).entries()) {
    events.push({ type: "model.replied", reply: planned.reply });
    at += 1;
    for (const [j, { call }] of planned.calls.entries()) {
      const message = result.messages[at];
      const content = message?.role === "tool" ? message.content : "missing tool message";
      // A refused repeat is answered by the machine itself: no effect produced its message.
      if (refused[i]?.[j] !== true) events.push({ type: "tool.finished", callId: call.id, content });
      at += 1;
    }
  }
  return events;
}

async function run(plan: Plan) {
  const { registry, executions } = makeRegistry();
  const model = scriptedModel(scriptOf(plan).map((p) => p.reply));
  const options = { maxSteps: plan.maxSteps, tokenBudget: plan.tokenBudget };
  const result = await runAgent(
    plan.task,
    model,
    registry,
    plan.system === null ? options : { ...options, system: plan.system },
  );
  return { result, seen: model.seen, executions, specs: registry.specs() };
}

describe("runAgent over random model scripts", () => {
  it("pairs one tool message with each call, keeps the limits, recounts its tokens and runs only valid calls", async () => {
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
        const refused = refusals(script, n);
        let at = 2;
        let spent = 0;
        for (const [i, planned] of script.slice(0, n).entries()) {
          // The model was shown exactly the list so far: a prefix of the final list, 2 + everything before.
          expect(seen[i]).toEqual(messages.slice(0, at));
          const prompt = countTokens(specs) + countTokens(seen[i]);
          expect(spent + prompt).toBeLessThanOrEqual(plan.tokenBudget); // checked BEFORE the call
          spent += prompt + countTokens(assistantOf(planned.reply));

          expect(messages[at]).toEqual(assistantOf(planned.reply));
          at += 1;
          for (const [j, { call, kind }] of planned.calls.entries()) {
            const message = messages[at];
            expect(message).toEqual({
              role: "tool",
              toolCallId: call.id,
              name: call.name,
              content: expect.any(String),
            });
            const content = message?.role === "tool" ? message.content : "";
            if (refused[i]?.[j] === true) {
              // The third identical call in a row never runs, whatever its kind.
              expect(content).toBe(REPEAT_REFUSAL(call.name));
            } else if (kind === "returns") {
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

        // Nothing ran for an invalid or unknown call; every valid call that was reached ran once, in order.
        expect(executions).toEqual(ran);

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

  it("ends in the state its status names, and a bare actor driven by driveEffects gives the same output", async () => {
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const { result } = await run(plan);
        const { registry } = makeRegistry();
        const model = scriptedModel(scriptOf(plan).map((p) => p.reply));
        const input = inputOf(plan, registry, model);
        const actor = createActor(agentMachine, { input });
        const output = toPromise(actor);
        const failures: unknown[] = [];
        driveEffects(actor, input, (error) => failures.push(error));
        actor.start();
        expect(await output).toEqual(result);
        expect(failures).toEqual([]);
        const snapshot = actor.getSnapshot();
        expect(snapshot.status).toBe("done");
        expect(snapshot.value).toBe(STATE_OF[result.status]);
        expect(snapshot.context.status).toBe(result.status);
        expect(snapshot.context.answer !== null).toBe(result.status === "done");
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

interface Taken {
  readonly snapshot: AgentSnapshot;
  /** A deep copy of the snapshot's message list, made when it was taken. */
  readonly copy: Message[];
}

function take(snapshot: AgentSnapshot): Taken {
  return { snapshot, copy: structuredClone([...messagesOf(snapshot.context.transcript)]) };
}

/** The event that forks a run at `snapshot`: a different answer, or a different result for the next call. */
function forkEvent(snapshot: AgentSnapshot, label: string): { event: AgentEvent; message: Message } | null {
  if (snapshot.value === "callingModel") {
    return { event: { type: "model.replied", reply: final(label) }, message: assistantOf(final(label)) };
  }
  const next = snapshot.context.pendingCalls[0];
  if (!snapshot.matches({ executingTools: "runningTool" }) || next === undefined) return null;
  return {
    event: { type: "tool.finished", callId: next.id, content: label },
    message: { role: "tool", toolCallId: next.id, name: next.name, content: label },
  };
}

interface Fork {
  readonly snapshot: AgentSnapshot;
  readonly expected: readonly Message[];
}

/** Steps `at` with a fork event; the fork's list must be `at`'s list plus the one new message. */
function forkFrom(at: Taken, label: string): Fork {
  const fork = forkEvent(at.snapshot, label);
  expect(fork).not.toBeNull();
  if (fork === null) return { snapshot: at.snapshot, expected: at.copy };
  return { snapshot: transition(agentMachine, at.snapshot, fork.event)[0], expected: [...at.copy, fork.message] };
}

describe("pure stepping over random runs", () => {
  it("folding a run's events rebuilds it with no effects; every snapshot keeps its own list, forks included", async () => {
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const { result } = await run(plan);
        const { registry, executions } = makeRegistry();
        const model = () => {
          throw new Error("pure stepping must not call the model");
        };
        const input = inputOf(plan, registry, model);
        const events = eventsOf(plan, result);

        // Fold the run; at one point fork the newest snapshot FIRST, then go on with the original event.
        const forks: Fork[] = [];
        const forkAt = events.length === 0 ? -1 : plan.forkAt % events.length;
        const taken = [take(initialTransition(agentMachine, input)[0])];
        for (const [i, event] of events.entries()) {
          const head = taken.at(-1);
          if (head === undefined) break;
          if (i === forkAt) forks.push(forkFrom(head, "fork at the head"));
          taken.push(take(transition(agentMachine, head.snapshot, event)[0]));
        }
        const end = taken.at(-1)?.snapshot;
        expect(end?.status).toBe("done");
        expect(end?.value).toBe(STATE_OF[result.status]);
        expect(end?.output).toEqual(result);
        expect(executions).toEqual([]);

        // Append-only: each later list holds the very same (frozen) message objects, then one new one (and the
        // refusals of the repeats that follow it, which the machine answers itself).
        for (const [k, { snapshot }] of taken.slice(1).entries()) {
          const before = messagesOf((taken[k]?.snapshot ?? snapshot).context.transcript);
          const after = messagesOf(snapshot.context.transcript);
          expect(after.length).toBeGreaterThan(before.length);
          for (const m of after.slice(before.length + 1)) {
            expect(m.role === "tool" && m.content === REPEAT_REFUSAL(m.name)).toBe(true);
          }
          before.forEach((message, i) => {
            expect(after[i]).toBe(message);
          });
        }

        // Fork twice more from an earlier snapshot, after the run went on past it.
        const active = taken.filter((t) => t.snapshot.status === "active");
        const early = active[plan.forkAt % Math.max(1, active.length)];
        if (early !== undefined) forks.push(forkFrom(early, "fork A"), forkFrom(early, "fork B"));

        // No snapshot, of the run or of a fork, sees another's messages.
        for (const { snapshot, copy } of taken) expect(messagesOf(snapshot.context.transcript)).toEqual(copy);
        for (const fork of forks) {
          const list = messagesOf(fork.snapshot.context.transcript);
          expect(list.slice(0, fork.expected.length)).toEqual(fork.expected);
          for (const m of list.slice(fork.expected.length)) {
            expect(m.role === "tool" && m.content === REPEAT_REFUSAL(m.name)).toBe(true);
          }
        }
        expect(end?.output).toEqual(result);
      }),
      { numRuns: 100 },
    );
  });
});
