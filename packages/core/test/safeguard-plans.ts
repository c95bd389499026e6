import fc from "fast-check";
import {
  countTokens,
  type Decision,
  final,
  type Message,
  type ModelReply,
  type ToolCall,
  ToolRegistry,
} from "../src/index.js";
import { DEFAULT_SYSTEM } from "../src/machine.js";

/**
 * Random runs that exercise every safeguard at once, and an oracle that says, from the rules alone, what each
 * run must give: which calls run, what each observation says, where a run pauses, stops or is cancelled.
 */

/** What a call is: each kind has its own observation. */
export type Kind = "echo" | "long" | "hang" | "stall" | "boom" | "risky" | "unknown";
export type Verdict = "approve" | "deny" | "pause";

export interface PlannedCall {
  readonly call: ToolCall;
  readonly kind: Kind;
  /** For `risky`: what the approver says (pause = no decision now). */
  readonly verdict: Verdict;
  /** For `risky`: the decision given when a paused run is resumed. */
  readonly later: "approve" | "deny";
}

export interface PlannedReply {
  readonly content: string;
  readonly calls: readonly PlannedCall[];
  /** When set, the reply reports usage: the estimates less these many tokens. */
  readonly usage: { readonly lessIn: number; readonly lessOut: number } | null;
}

export interface Plan {
  readonly task: string;
  /** The model's script; a final answer follows it, so the script never runs out. */
  readonly replies: readonly PlannedReply[];
  readonly maxSteps: number;
  readonly tokenBudget: number;
  /** Reserve room for the reply: not at all, with `replyReserve`, or with the model's `maxReplyTokens`. */
  readonly reserve: "none" | "option" | "model";
  readonly reserveExtra: number;
  readonly repeatLimit: number | null;
  readonly onRepeatedCall: "refuse" | "stop" | null;
  readonly approver: "none" | "sync" | "async";
  readonly toolTimeoutMs: number;
  readonly maxResultChars: number | null;
  /** Abort the run's signal at the `at`-th model, tool or approver invocation: inside it, or just after it. */
  readonly abort: { readonly at: number; readonly mode: "inside" | "after" } | null;
  readonly store: boolean;
}

export const HANG_TIMEOUT_MS = 2;
export const LONG_MAX_CHARS = 40;
export const TOOL_NAMES = ["boom", "echo", "hang", "long", "risky", "stall"];

const textArb = fc.string({ maxLength: 12 });

/** A call's kind and arguments; ids come later, when the plan is numbered. */
const shapeArb: fc.Arbitrary<{ kind: Kind; name: string; args: Record<string, unknown> }> = fc.oneof(
  fc.constantFrom("", "a", "b").map((text) => ({ kind: "echo" as const, name: "echo", args: { text } })),
  fc.integer({ min: 0, max: 90 }).map((n) => ({ kind: "long" as const, name: "long", args: { n } })),
  fc.constant({ kind: "hang" as const, name: "hang", args: {} }),
  fc.constant({ kind: "stall" as const, name: "stall", args: {} }),
  fc.constant({ kind: "boom" as const, name: "boom", args: {} }),
  fc.constant({ kind: "risky" as const, name: "risky", args: {} }),
  fc.constant({ kind: "risky" as const, name: "risky", args: {} }),
  fc.constant({ kind: "unknown" as const, name: "nope", args: {} }),
);

const verdictArb = fc.record({
  verdict: fc.constantFrom<Verdict>("approve", "deny", "pause"),
  later: fc.constantFrom<"approve" | "deny">("approve", "deny"),
});

type Draft = { kind: Kind; name: string; args: Record<string, unknown>; verdict: Verdict; later: "approve" | "deny" };

const draftArb: fc.Arbitrary<Draft> = fc.tuple(shapeArb, verdictArb).map(([shape, v]) => ({ ...shape, ...v }));

/** Some calls, or the same (not risky) call two to four times, so that repeats come up. */
const draftsArb: fc.Arbitrary<Draft[]> = fc.oneof(
  { arbitrary: fc.array(draftArb, { minLength: 1, maxLength: 3 }), weight: 3 },
  fc
    .tuple(draftArb, fc.integer({ min: 2, max: 4 }))
    .map(([draft, times]) =>
      Array.from({ length: times }, () =>
        draft.kind === "risky" ? { ...draft, kind: "echo" as const, name: "echo", args: { text: "r" } } : draft,
      ),
    ),
);

const usageArb = fc.option(fc.record({ lessIn: fc.nat(8), lessOut: fc.nat(8) }), { nil: null });

const replyArb = fc.oneof(
  { arbitrary: fc.record({ content: textArb, drafts: draftsArb, usage: usageArb }), weight: 6 },
  fc.record({ content: textArb, drafts: fc.constant<Draft[]>([]), usage: usageArb }),
);

export const planArb: fc.Arbitrary<Plan> = fc
  .record({
    task: textArb,
    replies: fc.noBias(fc.array(replyArb, { maxLength: 8 })),
    maxSteps: fc.noBias(fc.integer({ min: 0, max: 9 })),
    tokenBudget: fc.oneof(fc.constant(1_000_000), fc.noBias(fc.integer({ min: 100, max: 3000 }))),
    reserve: fc.constantFrom<Plan["reserve"]>("none", "option", "model"),
    reserveExtra: fc.nat(5),
    repeatLimit: fc.option(fc.integer({ min: 2, max: 4 }), { nil: null }),
    onRepeatedCall: fc.option(fc.constantFrom<"refuse" | "stop">("refuse", "stop"), { nil: null }),
    approver: fc.constantFrom<Plan["approver"]>("none", "sync", "async"),
    toolTimeoutMs: fc.integer({ min: 1, max: 4 }),
    maxResultChars: fc.option(fc.integer({ min: 12, max: 120 }), { nil: null }),
    abort: fc.option(
      fc.record({ at: fc.integer({ min: 1, max: 9 }), mode: fc.constantFrom<"inside" | "after">("inside", "after") }),
      { nil: null },
    ),
    store: fc.boolean(),
  })
  .map(({ replies, ...rest }) => ({
    ...rest,
    // Ids are unique in a run; a risky call's argument is its own id, so an execution names its call.
    replies: replies.map(({ content, drafts, usage }, i) => ({
      content,
      usage,
      calls: drafts.map(({ kind, name, args, verdict, later }, j) => {
        const id = `c${i}_${j}`;
        return { kind, verdict, later, call: { id, name, args: kind === "risky" ? { to: id } : args } };
      }),
    })),
  }));

/** The model's replies: the plan's, then the final answer. */
export function scriptOf(plan: Plan): ModelReply[] {
  return [
    ...plan.replies.map((r) => ({ content: r.content, toolCalls: r.calls.map((c) => c.call) })),
    final("the end"),
  ];
}

export function assistantOf(reply: ModelReply): Message {
  return { role: "assistant", content: reply.content, toolCalls: reply.toolCalls };
}

/** The largest reply of the script, in estimated tokens: a reserve this large covers every reply. */
export function replyBound(plan: Plan): number {
  return Math.max(...scriptOf(plan).map((reply) => countTokens(assistantOf(reply))));
}

export function reserveOf(plan: Plan): number {
  return plan.reserve === "none" ? 0 : replyBound(plan) + plan.reserveExtra;
}

/** A fresh registry with the plan's tools: every function invocation is logged, in order, with its signal. */
export function makeTools(onInvoke: (name: string, args: Record<string, unknown>, signal: AbortSignal) => void) {
  const registry = new ToolRegistry();
  const never =
    (name: string) =>
    (args: Record<string, unknown>, { signal }: { signal: AbortSignal }) => {
      onInvoke(name, args, signal);
      // Never settles: only the timeout (or the cancel) moves the run on.
      return new Promise(() => {});
    };
  const noArgs = { type: "object" } as const;
  registry.register(
    "echo",
    "Echoes.",
    { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    (args: { text: string }, { signal }: { signal: AbortSignal }) => {
      onInvoke("echo", args, signal);
      return { echo: args.text };
    },
  );
  registry.register(
    "long",
    "A long text.",
    { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    (args: { n: number }, { signal }: { signal: AbortSignal }) => {
      onInvoke("long", args, signal);
      return "x".repeat(args.n);
    },
    { maxResultChars: LONG_MAX_CHARS },
  );
  registry.register("hang", "Never ends.", noArgs, never("hang"), { timeoutMs: HANG_TIMEOUT_MS });
  registry.register("stall", "Never ends either.", noArgs, never("stall"));
  registry.register("boom", "Fails.", noArgs, (args: Record<string, unknown>, { signal }: { signal: AbortSignal }) => {
    onInvoke("boom", args, signal);
    throw new RangeError("boom went the tool");
  });
  registry.register(
    "risky",
    "Sends.",
    { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    (args: { to: string }, { signal }: { signal: AbortSignal }) => {
      onInvoke("risky", args, signal);
      return { sent: args.to };
    },
    { needsApproval: true },
  );
  return registry;
}

/** Cuts as documented: head and tail around a marker saying how many characters were cut. */
export function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.ceil(limit / 2);
  const tail = limit - head;
  return `${text.slice(0, head)}\n[... ${text.length - limit} characters cut ...]\n${tail > 0 ? text.slice(-tail) : ""}`;
}

export function denialOf(name: string, reason: string | undefined): string {
  return `ERROR: the user denied this call to ${name}${reason ? ` (${reason})` : ""}, so it was not run. Do not ask for it again; answer without it or ask the user what to do.`;
}

export function repeatRefusalOf(name: string, limit: number): string {
  return `ERROR: ${name} was asked for with the same arguments ${limit} times in a row, so it was not run again: the result would not change. Use the result you already have, call it with different arguments, or answer.`;
}

export function closedOf(name: string, why: "cancelled" | "repeated"): string {
  const reason = why === "cancelled" ? "the run was cancelled" : "the run stopped because a call was repeated";
  return `ERROR: ${name} was not run to completion: ${reason}.`;
}

export function timedOutOf(name: string, ms: number): string {
  return `ERROR: ${name} timed out after ${ms} ms. It may still have had an effect; check before calling it again.`;
}

/** The decision an approver gives for a planned verdict; a denial's reason names the call. */
export function decisionOf(planned: PlannedCall): Decision | undefined {
  if (planned.verdict === "pause") return undefined;
  return planned.verdict === "approve" ? { approved: true } : { approved: false, reason: `no ${planned.call.id}` };
}

/** What the observation of a call that gets to its tool (not refused, not denied) is. */
function observationOf(plan: Plan, { call, kind }: PlannedCall): string {
  const limit = plan.maxResultChars ?? 8000;
  switch (kind) {
    case "echo":
      return cut(JSON.stringify({ echo: call.args.text }), limit);
    case "long":
      return cut(JSON.stringify("x".repeat(Number(call.args.n))), LONG_MAX_CHARS);
    case "hang":
      return cut(timedOutOf("hang", HANG_TIMEOUT_MS), limit);
    case "stall":
      return cut(timedOutOf("stall", plan.toolTimeoutMs), limit);
    case "boom":
      return cut("ERROR: boom failed: RangeError: boom went the tool", limit);
    case "risky":
      return cut(JSON.stringify({ sent: call.id }), limit);
    case "unknown":
      return cut(`ERROR: unknown tool 'nope'. Available tools: [${TOOL_NAMES.map((n) => `'${n}'`).join(", ")}]`, limit);
  }
}

/** A point of the expected run where something is invoked: the model, a tool function or the approver. */
export interface Invocation {
  readonly kind: "model" | "tool" | "approver";
  /** The messages before it, and the calls of the current reply that have no tool message yet. */
  readonly messages: readonly Message[];
  readonly pending: readonly ToolCall[];
  readonly steps: number;
  readonly tokens: number;
  /** Tool functions invoked before it (itself included, for a tool). */
  readonly executed: number;
  /** For the approver: whether it gives no decision, so that the run pauses here. */
  readonly pauses: boolean;
}

export interface Expected {
  readonly status: "done" | "step_limit" | "token_budget" | "repeated_call";
  readonly answer: string | null;
  readonly steps: number;
  readonly tokens: number;
  readonly messages: readonly Message[];
  /** Every tool function invocation, in order, as `name args`. */
  readonly executions: readonly string[];
  readonly invocations: readonly Invocation[];
  /** Where the run pauses (no decision from the approver), in order; a resume decides all the calls that wait. */
  readonly pauses: readonly Pause[];
}

export interface Pause {
  readonly messages: readonly Message[];
  /** The calls of the reply that wait for a decision: the paused one and the risky ones after it. */
  readonly pending: readonly ToolCall[];
  readonly steps: number;
  readonly tokens: number;
  readonly executed: number;
  /** Invocations before it: the approver's for the paused call is the next one (when there is an approver). */
  readonly invoked: number;
}

/** The run the rules give for `plan` when nothing cancels it and every pause is resumed with the later decisions. */
export function expectedRun(plan: Plan, specsTokens: number): Expected {
  const limit = plan.repeatLimit ?? 3;
  const reserve = reserveOf(plan);
  const script = [...plan.replies, { content: "the end", calls: [], usage: null }];
  const messages: Message[] = [
    { role: "system", content: DEFAULT_SYSTEM },
    { role: "user", content: plan.task },
  ];
  const executions: string[] = [];
  const invocations: Invocation[] = [];
  const pauses: Pause[] = [];
  let steps = 0;
  let tokens = 0;
  let last: string | null = null;
  let inARow = 0;
  const end = (status: Expected["status"], answer: string | null = null): Expected => ({
    status,
    answer,
    steps,
    tokens,
    messages,
    executions,
    invocations,
    pauses,
  });
  for (const planned of script) {
    if (steps >= plan.maxSteps) return end("step_limit");
    const prompt = specsTokens + countTokens(messages);
    if (tokens + prompt + reserve > plan.tokenBudget) return end("token_budget");
    const calls = planned.calls.map((c) => c.call);
    invocations.push({
      kind: "model",
      messages: [...messages],
      pending: [],
      steps,
      tokens,
      executed: executions.length,
      pauses: false,
    });
    const assistant: Message = { role: "assistant", content: planned.content, toolCalls: calls };
    const replyTokens = countTokens(assistant);
    messages.push(assistant);
    steps += 1;
    tokens +=
      planned.usage === null
        ? prompt + replyTokens
        : Math.max(0, prompt - planned.usage.lessIn) + Math.max(0, replyTokens - planned.usage.lessOut);
    if (calls.length === 0) return end("done", planned.content);
    // Decisions given by a resume, for the calls of this reply still waiting when it paused.
    const decidedLater = new Set<string>();
    for (const [j, p] of planned.calls.entries()) {
      const here = () => ({
        messages: [...messages],
        pending: calls.slice(j),
        steps,
        tokens,
        executed: executions.length,
      });
      const key = JSON.stringify([p.call.name, Object.entries(p.call.args).sort(([a], [b]) => (a < b ? -1 : 1))]);
      const repeated = key === last && inARow + 1 >= limit;
      inARow = key === last ? inARow + 1 : 1;
      last = key;
      let content: string;
      if (repeated && plan.onRepeatedCall === "stop") {
        for (const c of calls.slice(j))
          messages.push({ role: "tool", toolCallId: c.id, name: c.name, content: closedOf(c.name, "repeated") });
        return end("repeated_call");
      } else if (repeated) {
        content = repeatRefusalOf(p.call.name, limit);
      } else if (p.kind === "risky") {
        let decision: Decision;
        if (decidedLater.has(p.call.id)) {
          decision = { approved: p.later === "approve" };
        } else {
          const given = plan.approver === "none" ? undefined : decisionOf(p);
          if (given === undefined) {
            const waiting = planned.calls.slice(j).filter((c) => c.kind === "risky");
            pauses.push({ ...here(), pending: waiting.map((c) => c.call), invoked: invocations.length });
            for (const c of waiting) decidedLater.add(c.call.id);
          }
          if (plan.approver !== "none") invocations.push({ kind: "approver", ...here(), pauses: given === undefined });
          decision = given ?? { approved: p.later === "approve" };
        }
        if (decision.approved) {
          executions.push(`risky ${JSON.stringify(p.call.args)}`);
          invocations.push({ kind: "tool", ...here(), pauses: false });
          content = observationOf(plan, p);
        } else {
          content = denialOf("risky", decision.reason);
        }
      } else {
        if (p.kind !== "unknown") {
          executions.push(`${p.call.name} ${JSON.stringify(p.call.args)}`);
          invocations.push({ kind: "tool", ...here(), pauses: false });
        }
        content = observationOf(plan, p);
      }
      messages.push({ role: "tool", toolCallId: p.call.id, name: p.call.name, content });
    }
  }
  throw new Error("the script always ends with an answer");
}
