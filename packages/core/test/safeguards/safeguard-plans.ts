import fc from "fast-check";
import {
  countTokens,
  type Decision,
  final,
  type Message,
  type ModelReply,
  type ToolCall,
  ToolRegistry,
} from "../../src/index.js";

/**
 * Random runs that exercise every safeguard at once: what the model asks for, what the approver
 * says, how calls are named and how many may run at once. `safeguard-rules.ts` says, from the
 * rules alone, what each run must give.
 */

/** What a call is: each kind has its own observation. */
export type Kind = "echo" | "long" | "hang" | "stall" | "boom" | "risky" | "unknown";
export type Verdict = "approve" | "deny" | "pause";

/**
 * How the model names its calls: `unique` ids; `reused`, the same ids in every reply; `same`, one id
 * for every call, several in one reply. The run makes them unique before it logs the reply.
 */
export type Ids = "unique" | "reused" | "same";

export interface PlannedCall {
  /** The call as the model sends it: its id may be blank or repeat. */
  readonly call: ToolCall;
  readonly kind: Kind;
  /** For `risky`: what the approver says (pause = no decision now). */
  readonly verdict: Verdict;
  /** For `risky`: the decision given when a paused run is resumed. */
  readonly later: "approve" | "deny";
  /** Which call this is, unique in the plan; a risky call's `to` argument, so that an execution or a decision names its call. */
  readonly token: string;
}

export interface PlannedReply {
  readonly content: string;
  readonly calls: readonly PlannedCall[];
  /** When set, the reply reports usage: the estimates less these many tokens. */
  readonly usage: { readonly lessIn: number; readonly lessOut: number } | null;
}

export interface Plan {
  readonly task: string;
  /** A conversation carried over, between the system message and the task. */
  readonly history: readonly Message[];
  /** The model's script; a final answer follows it, so the script never runs out. */
  readonly replies: readonly PlannedReply[];
  readonly maxSteps: number;
  readonly tokenBudget: number;
  /** Reserve room for the reply: not at all, with `replyReserve`, or with the model's `maxReplyTokens`. */
  readonly reserve: "none" | "option" | "model";
  readonly reserveExtra: number;
  readonly repeatLimit: number | null;
  readonly onRepeatedCall: "refuse" | "stop" | null;
  /** Calls of one reply in progress at once; null for the default (all of them). */
  readonly toolConcurrency: number | null;
  readonly ids: Ids;
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
/** The tools registered as idempotent: their repeat refusal says the result would not change. */
export const IDEMPOTENT = ["echo"];

const textArb = fc.string({ maxLength: 12 });
/** Turns of the event loop a tool waits before it settles (0: it returns at once): calls finish in any order. */
const waitArb = fc.nat(3);

/** A call's kind and arguments; ids and tokens come later, when the plan is numbered. */
const shapeArb: fc.Arbitrary<{ kind: Kind; name: string; args: Record<string, unknown> }> = fc.oneof(
  fc
    .tuple(fc.constantFrom("", "a", "b"), waitArb)
    .map(([text, wait]) => ({ kind: "echo" as const, name: "echo", args: { text, wait } })),
  fc
    .tuple(fc.integer({ min: 0, max: 90 }), waitArb)
    .map(([n, wait]) => ({ kind: "long" as const, name: "long", args: { n, wait } })),
  fc.constant({ kind: "hang" as const, name: "hang", args: {} }),
  fc.constant({ kind: "stall" as const, name: "stall", args: {} }),
  waitArb.map((wait) => ({ kind: "boom" as const, name: "boom", args: { wait } })),
  waitArb.map((wait) => ({ kind: "risky" as const, name: "risky", args: { wait } })),
  waitArb.map((wait) => ({ kind: "risky" as const, name: "risky", args: { wait } })),
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

/** Conversations carried over: none, a short exchange, and one whose call uses an id the model will use again. */
export const HISTORIES: readonly (readonly Message[])[] = [
  [],
  [
    { role: "user", content: "hi" },
    { role: "assistant", content: "hello", toolCalls: [] },
  ],
  [
    { role: "user", content: "echo h" },
    { role: "assistant", content: "", toolCalls: [{ id: "call_0", name: "echo", args: { text: "h" } }] },
    { role: "tool", toolCallId: "call_0", name: "echo", content: '{"echo":"h"}' },
    { role: "assistant", content: "h", toolCalls: [] },
  ],
];

export const planArb: fc.Arbitrary<Plan> = fc
  .record({
    task: textArb,
    history: fc.constantFrom(...HISTORIES),
    replies: fc.noBias(fc.array(replyArb, { maxLength: 8 })),
    maxSteps: fc.noBias(fc.integer({ min: 0, max: 9 })),
    tokenBudget: fc.oneof(fc.constant(1_000_000), fc.noBias(fc.integer({ min: 100, max: 3000 }))),
    reserve: fc.constantFrom<Plan["reserve"]>("none", "option", "model"),
    reserveExtra: fc.nat(5),
    repeatLimit: fc.option(fc.integer({ min: 2, max: 4 }), { nil: null }),
    onRepeatedCall: fc.option(fc.constantFrom<"refuse" | "stop">("refuse", "stop"), { nil: null }),
    toolConcurrency: fc.constantFrom(null, 1, 2, 3, Number.POSITIVE_INFINITY),
    ids: fc.constantFrom<Ids>("unique", "reused", "same"),
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
    replies: replies.map(({ content, drafts, usage }, i) => ({
      content,
      usage,
      calls: drafts.map(({ kind, name, args, verdict, later }, j) => {
        const id = rest.ids === "unique" ? `c${i}_${j}` : rest.ids === "reused" ? `c${j}` : "call_0";
        const token = `t${i}_${j}`;
        return {
          kind,
          verdict,
          later,
          token,
          call: { id, name, args: kind === "risky" ? { ...args, to: token } : args },
        };
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

/** What a tool function is told when it starts, and when it settles (returns, throws, or is aborted). */
export interface ToolWatch {
  started(name: string, args: Record<string, unknown>, signal: AbortSignal): void;
  settled(name: string): void;
}

/** Waits `turns` turns of the event loop, then gives `value` (or throws it, for `boom`). */
async function after<T>(turns: unknown, value: () => T): Promise<T> {
  for (let turn = 0; turn < Number(turns ?? 0); turn++) await new Promise((resolve) => setImmediate(resolve));
  return value();
}

/** A fresh registry with the plan's tools: each tells `watch` when it starts and when it settles. */
export function makeTools(watch: ToolWatch): ToolRegistry {
  const registry = new ToolRegistry();
  const wait = { wait: { type: "integer" } } as const;
  // Their own timeout: a tool that waits a few turns must never race the run's timeout of a few milliseconds.
  const own = { timeoutMs: 60_000 };
  const settling =
    (name: string, result: (args: Record<string, unknown>) => unknown) =>
    (args: Record<string, unknown>, { signal }: { signal: AbortSignal }) => {
      watch.started(name, args, signal);
      const settle = () => {
        watch.settled(name);
        return result(args);
      };
      return args.wait === 0 || args.wait === undefined ? settle() : after(args.wait, settle);
    };
  const never =
    (name: string) =>
    (args: Record<string, unknown>, { signal }: { signal: AbortSignal }) => {
      watch.started(name, args, signal);
      signal.addEventListener("abort", () => watch.settled(name), { once: true });
      // Never settles: only the timeout (or the cancel) moves the run on.
      return new Promise(() => {});
    };
  const echo = { type: "object", properties: { text: { type: "string" }, ...wait }, required: ["text"] } as const;
  registry.register(
    "echo",
    "Echoes.",
    echo,
    settling("echo", (a) => ({ echo: a.text })),
    { ...own, idempotent: true },
  );
  const long = { type: "object", properties: { n: { type: "integer" }, ...wait }, required: ["n"] } as const;
  registry.register(
    "long",
    "A long text.",
    long,
    settling("long", (a) => "x".repeat(Number(a.n))),
    {
      ...own,
      maxResultChars: LONG_MAX_CHARS,
    },
  );
  registry.register("hang", "Never ends.", { type: "object" }, never("hang"), { timeoutMs: HANG_TIMEOUT_MS });
  registry.register("stall", "Never ends either.", { type: "object" }, never("stall"));
  const fails = () => {
    throw new RangeError("boom went the tool");
  };
  registry.register("boom", "Fails.", { type: "object", properties: wait }, settling("boom", fails), own);
  const risky = { type: "object", properties: { to: { type: "string" }, ...wait }, required: ["to"] } as const;
  registry.register(
    "risky",
    "Sends.",
    risky,
    settling("risky", (a) => ({ sent: a.to })),
    {
      ...own,
      needsApproval: true,
    },
  );
  return registry;
}

/** The planned call a token names. */
export function plannedCall(plan: Plan, token: unknown): PlannedCall {
  const found = plan.replies.flatMap((r) => r.calls).find((c) => c.token === token);
  if (found === undefined) throw new Error(`no planned call ${String(token)}`);
  return found;
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

/** The repeat refusal: it says the result would not change only for a tool that is idempotent. */
export function repeatRefusalOf(name: string, limit: number): string {
  const head = `ERROR: ${name} was asked for with the same arguments ${limit} times in a row, so it was not run again`;
  return IDEMPOTENT.includes(name)
    ? `${head}: the result would not change. Use the result you already have, call it with different arguments, or answer.`
    : `${head}. Use the results you already have, call it with different arguments, or answer; if it really must run again, say so in your answer.`;
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
  return planned.verdict === "approve" ? { approved: true } : { approved: false, reason: `no ${planned.token}` };
}

/** A tool message as a log of schema 2 holds it: a failure is marked as one. */
export function toolMessage(call: ToolCall, content: string): Message {
  const message = { role: "tool", toolCallId: call.id, name: call.name, content } as const;
  return content.startsWith("ERROR:") ? { ...message, isError: true } : message;
}
