import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hangGuard } from "../../../../hang-guard.js";
import {
  type AgentResult,
  countTokens,
  final,
  MemoryEventStore,
  type Message,
  type Model,
  type ModelReply,
  replayRun,
  runAgent,
  type ToolCall,
  ToolRegistry,
} from "../../src/index.js";
import { comparable, traceProblem } from "../run/trace.js";

/**
 * Calls of one reply that finish in a random order: every tool and every decision is a promise that
 * fast-check's scheduler settles in an order it draws (and shrinks, and prints on failure), with the
 * run left to settle between two of them. Concurrency caps are drawn too.
 */

type Kind = "work" | "instant" | "send" | "unknown" | "invalid";

interface Planned {
  readonly kind: Kind;
  readonly n: number;
  /** For `send`: the approver's decision. */
  readonly approve: boolean;
}

interface Plan {
  readonly replies: readonly (readonly Planned[])[];
  readonly maxSteps: number;
  readonly tokenBudget: number;
  readonly toolConcurrency: number | null;
  /** How the model names its calls: unique ids, the same ids in every reply, or one id for all. */
  readonly ids: "unique" | "reused" | "same";
}

const plannedArb: fc.Arbitrary<Planned> = fc.record({
  kind: fc.constantFrom<Kind>("work", "work", "work", "instant", "send", "send", "unknown", "invalid"),
  n: fc.nat(9),
  approve: fc.boolean(),
});

const planArb: fc.Arbitrary<Plan> = fc.record({
  replies: fc.array(fc.array(plannedArb, { minLength: 1, maxLength: 4 }), { maxLength: 4 }),
  maxSteps: fc.integer({ min: 0, max: 6 }),
  tokenBudget: fc.oneof(fc.constant(1_000_000), fc.integer({ min: 200, max: 2500 })),
  toolConcurrency: fc.constantFrom(null, 1, 2, 3, Number.POSITIVE_INFINITY),
  ids: fc.constantFrom<Plan["ids"]>("unique", "reused", "same"),
});

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Each release of a task waits for the run to settle before and after it, so what happens between two releases happens all at once. */
const schedulerArb = fc.scheduler({
  act: async (release) => {
    await turn();
    await release();
    await turn();
  },
});

/** The token that names call `j` of reply `i`: the `n` of its arguments is the plan's, the token tells calls apart. */
const tokenOf = (i: number, j: number) => `t${i}_${j}`;

function scriptOf(plan: Plan): ModelReply[] {
  const replies = plan.replies.map((calls, i) => ({
    content: `step ${i}`,
    toolCalls: calls.map(({ kind, n }, j): ToolCall => {
      const id = plan.ids === "unique" ? `c${i}_${j}` : plan.ids === "reused" ? `c${j}` : "c";
      const token = tokenOf(i, j);
      if (kind === "send") return { id, name: "send", args: { to: token } };
      if (kind === "unknown") return { id, name: "nope", args: {} };
      // No token: its function never runs, so nothing of it is watched.
      if (kind === "invalid") return { id, name: "work", args: { n: String(n) } };
      return { id, name: kind, args: { n, token } };
    }),
  }));
  return [...replies, final("the end")];
}

/** What happened, in order: each tool function's start and end, by token. */
type Happening = { readonly what: "start" | "end"; readonly token: string };

interface Outcome {
  readonly result: AgentResult;
  readonly seen: Message[][];
  readonly happenings: Happening[];
  readonly approved: Set<string>;
  /** The most tool functions and approvers at work at once, as they counted themselves. */
  readonly busiest: number;
  readonly specsTokens: number;
  readonly store: MemoryEventStore;
}

async function run(plan: Plan, s: fc.Scheduler): Promise<Outcome> {
  const happenings: Happening[] = [];
  const approved = new Set<string>();
  let busy = 0;
  let busiest = 0;
  const start = (token: string) => {
    happenings.push({ what: "start", token });
    busy += 1;
    busiest = Math.max(busiest, busy);
  };
  const end = <T>(token: string, value: T): T => {
    happenings.push({ what: "end", token });
    busy -= 1;
    return value;
  };
  const registry = new ToolRegistry();
  const props = { type: "object", properties: { n: { type: "integer" }, token: { type: "string" } } } as const;
  registry.register("work", "Works a while.", props, ({ n, token }: { n: number; token: string }) => {
    start(token);
    return s.schedule(Promise.resolve({ done: n }), token).then((value) => end(token, value));
  });
  registry.register("instant", "Answers at once.", props, ({ n, token }: { n: number; token: string }) => {
    start(token);
    return end(token, { now: n });
  });
  const to = { type: "object", properties: { to: { type: "string" } }, required: ["to"] } as const;
  registry.register(
    "send",
    "Sends.",
    to,
    ({ to: token }: { to: string }) => {
      start(token);
      return s.schedule(Promise.resolve({ sent: token }), token).then((value) => end(token, value));
    },
    { needsApproval: true },
  );
  const script = scriptOf(plan);
  const seen: Message[][] = [];
  const model: Model = (messages) => {
    seen.push(structuredClone([...messages]));
    return script[seen.length - 1] ?? final("script ran out");
  };
  const store = new MemoryEventStore();
  const running = runAgent("Work.", model, registry, {
    maxSteps: plan.maxSteps,
    tokenBudget: plan.tokenBudget,
    ...(plan.toolConcurrency === null ? {} : { toolConcurrency: plan.toolConcurrency }),
    store,
    runId: "run",
    approve: (call) => {
      const token = String(call.args.to);
      const [i, j] = token.slice(1).split("_").map(Number);
      const decision = { approved: plan.replies[i as number]?.[j as number]?.approve === true };
      if (decision.approved) approved.add(token);
      busy += 1;
      busiest = Math.max(busiest, busy);
      return s.schedule(Promise.resolve(decision), `decide ${token}`).then((value) => {
        busy -= 1;
        return value;
      });
    },
  });
  const result = await s.waitFor(running);
  return { result, seen, happenings, approved, busiest, specsTokens: countTokens(registry.specs()), store };
}

/** The observation the rules give a planned call, whatever order it finished in. */
function contentOf({ kind, n, approve }: Planned, token: string): string | RegExp {
  switch (kind) {
    case "work":
      return JSON.stringify({ done: n });
    case "instant":
      return JSON.stringify({ now: n });
    case "send":
      return approve
        ? JSON.stringify({ sent: token })
        : "ERROR: the user denied this call to send, so it was not run. Do not ask for it again; answer without it or ask the user what to do.";
    case "unknown":
      return "ERROR: unknown tool 'nope'. Available tools: ['instant', 'send', 'work']";
    case "invalid":
      return /^ERROR: .*work expects/;
  }
}

/** The log's tool.started and tool.finished, by token, for the calls whose functions ran. */
function logged(result: AgentResult, log: Awaited<ReturnType<MemoryEventStore["read"]>>): Happening[] {
  const tokens = new Map(
    result.messages.flatMap((m) =>
      m.role === "assistant" ? m.toolCalls.map((c) => [c.id, c.args.token ?? c.args.to]) : [],
    ),
  );
  return log.flatMap((e): Happening[] => {
    if (e.type !== "tool.started" && e.type !== "tool.finished") return [];
    const token = tokens.get(e.callId);
    return typeof token === "string" ? [{ what: e.type === "tool.started" ? "start" : "end", token }] : [];
  });
}

/**
 * Where the log's order of starts and ends differs from the order they happened in. A start is
 * logged before its tool runs (so that a crash finds it) and an end after it settles, so the log
 * is not the timeline itself; but its starts come in the order the tools started, its ends in the
 * order they settled, each call's start before its end, and an end logged before a start means
 * that tool really ended before the other started.
 */
function orderProblems(log: readonly Happening[], real: readonly Happening[]): string[] {
  const problems: string[] = [];
  const of = (what: Happening["what"], list: readonly Happening[]) =>
    list.filter((h) => h.what === what).map((h) => h.token);
  if (JSON.stringify(of("start", log)) !== JSON.stringify(of("start", real))) problems.push("starts out of order");
  if (JSON.stringify(of("end", log)) !== JSON.stringify(of("end", real))) problems.push("ends out of order");
  const when = (h: Happening, list: readonly Happening[]) =>
    list.findIndex((r) => r.what === h.what && r.token === h.token);
  for (const [p, h] of log.entries()) {
    if (h.what === "end" && when({ what: "start", token: h.token }, log) > p)
      problems.push(`${h.token} ends before it starts`);
    if (h.what !== "start") continue;
    for (const before of log.slice(0, p).filter((b) => b.what === "end")) {
      if (when(before, real) > when(h, real))
        problems.push(`${before.token} logged as ended before ${h.token} started`);
    }
  }
  return problems;
}

describe("calls of one reply that finish in a random order, under a random cap", () => {
  it(
    "one message per call in call order, never more in progress than the cap, a log in the order things happened",
    async () => {
      await fc.assert(
        fc.asyncProperty(planArb, schedulerArb, async (plan, s) => {
          const { result, seen, happenings, approved, busiest, specsTokens, store } = await run(plan, s);
          const cap = plan.toolConcurrency ?? Number.POSITIVE_INFINITY;
          // Model calls: at most maxSteps; each sent within the budget, counted before the call.
          expect(seen.length).toBe(result.steps);
          expect(result.steps).toBeLessThanOrEqual(plan.maxSteps);
          const assistants = result.messages.filter((m) => m.role === "assistant");
          let spent = 0;
          for (const [i, list] of seen.entries()) {
            const prompt = specsTokens + countTokens(list);
            expect(spent + prompt).toBeLessThanOrEqual(plan.tokenBudget);
            spent += prompt + countTokens(assistants[i]);
            // Never edited: every later list extends this one.
            expect(result.messages.slice(0, list.length)).toEqual(list);
          }
          // One tool message per call, in call order, with what the rules say, whatever the finish order.
          expect(traceProblem(result.messages)).toBeNull();
          let at = 2;
          for (const [i, assistant] of assistants.entries()) {
            at += 1;
            for (const [j, call] of (assistant.role === "assistant" ? assistant.toolCalls : []).entries()) {
              const message = result.messages[at];
              const expected = contentOf(plan.replies[i]?.[j] as Planned, tokenOf(i, j));
              expect(message?.role === "tool" && message.toolCallId).toBe(call.id);
              if (typeof expected === "string") expect(message?.role === "tool" && message.content).toBe(expected);
              else expect(message?.role === "tool" ? message.content : "").toMatch(expected);
              at += 1;
            }
          }
          // Calls in progress at once, counted in the tools and the approver: never more than the cap.
          expect(busiest).toBeLessThanOrEqual(cap);
          // A call that needs approval ran only on a decision approving that very call; no call ran twice.
          const started = happenings.filter((h) => h.what === "start").map((h) => h.token);
          expect(new Set(started).size).toBe(started.length);
          for (const token of started) {
            const [i, j] = token.slice(1).split("_").map(Number);
            if (plan.replies[i as number]?.[j as number]?.kind === "send") expect(approved.has(token)).toBe(true);
          }
          // The log: starts and ends in the order they happened, and it replays to the result.
          const log = await store.read("run");
          expect(orderProblems(logged(result, log), happenings)).toEqual([]);
          expect(logged(result, log).length).toBe(happenings.length);
          expect(replayRun(log).result).toEqual(comparable(result));
        }),
        { numRuns: 200 },
      );
    },
    hangGuard(60_000),
  );

  it("calls at once are really at once: a reply of several slow calls keeps as many at work as the cap allows", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 5 }),
        fc.constantFrom(1, 2, 3, null),
        schedulerArb,
        async (k, cap, s) => {
          const calls = Array.from({ length: k }, (_, n): Planned => ({ kind: "work", n, approve: true }));
          const plan: Plan = {
            replies: [calls],
            maxSteps: 2,
            tokenBudget: 1_000_000,
            toolConcurrency: cap,
            ids: "unique",
          };
          const { result, busiest } = await run(plan, s);
          expect(result.status).toBe("done");
          expect(busiest).toBe(Math.min(k, cap ?? k));
        },
      ),
      { numRuns: 40 },
    );
  });
});
