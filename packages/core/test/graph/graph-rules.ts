import type { ToolCall } from "../../src/index.js";
import {
  callStates,
  eventsAlong,
  FINAL_STATES,
  outline,
  type Path,
  RISKY,
  RUNNING,
  repliesAt,
  type Setup,
} from "./agent-graph.js";
import { stepsOf } from "./graph-runs.js";

/**
 * The graphs' expectations computed from the rules, not from the machine: how a reply's calls are
 * taken up and answered, and how many runs end in each final state.
 */

export type Ends = Record<(typeof FINAL_STATES)[number], number>;

const none = (): Ends => ({ done: 0, stepLimit: 0, tokenBudget: 0, refused: 0, repeatedCall: 0, cancelled: 0 });

/** Where a call stands in the rules' own terms. */
type Stand = "todo" | "deciding" | "running" | "answered";

/** How one reply's calls can go: the orders of events that answer them all, and the states on the way that wait for an event. */
export interface Orders {
  readonly complete: number;
  readonly waits: number;
}

/**
 * The rules for one reply's calls: calls before `stopAt` are taken up in call order while fewer
 * than `cap` are in progress (refused ones are answered from the start and never taken up); a call
 * that needs approval waits for a decision (approved, it runs; denied, it is answered), any other
 * runs; a running call finishes. Any decision or result may come next. Counts the distinct orders
 * of events until every call before `stopAt` is answered, and the states where the run waits on
 * the way (each of which a cancel may end).
 */
export function ordersOf(risky: readonly boolean[], refused: readonly boolean[], stopAt: number, cap: number): Orders {
  const memo = new Map<string, Orders>();
  const count = (before: readonly Stand[]): Orders => {
    const stands = [...before];
    let inProgress = stands.filter((s) => s === "deciding" || s === "running").length;
    for (let i = 0; i < stopAt && inProgress < cap; i++) {
      if (stands[i] !== "todo") continue;
      stands[i] = risky[i] ? "deciding" : "running";
      inProgress += 1;
    }
    if (stands.slice(0, stopAt).every((s) => s === "answered")) return { complete: 1, waits: 0 };
    const key = stands.join();
    const known = memo.get(key);
    if (known !== undefined) return known;
    let complete = 0;
    let waits = 1;
    const then = (i: number, stand: Stand) => {
      const next = count(stands.map((s, j) => (j === i ? stand : s)));
      complete += next.complete;
      waits += next.waits;
    };
    for (const [i, stand] of stands.entries()) {
      if (stand === "deciding") {
        then(i, "running");
        then(i, "answered");
      }
      if (stand === "running") then(i, "answered");
    }
    const orders = { complete, waits };
    memo.set(key, orders);
    return orders;
  };
  return count(refused.map((r) => (r ? "answered" : "todo")));
}

type Row = { readonly key: string; readonly count: number } | null;

/** A reply's calls as the repeat guard plans them: which are refused, where the run stops (`calls.length`: nowhere), and the row after them. */
export interface Planned {
  readonly refused: readonly boolean[];
  readonly stopAt: number;
  readonly row: Row;
}

/**
 * The repeat guard's rule: the same tool with the same arguments `repeatLimit` times in a row,
 * counted across replies, is refused (`refuse`), or stops the run before it (`stop`); off, nothing.
 */
export function planReply(setup: Setup, before: Row, calls: readonly ToolCall[]): Planned {
  const { policy = "off", repeatLimit = 3 } = setup;
  let row = before;
  const refused = calls.map(() => false);
  for (const [i, call] of calls.entries()) {
    const key = `${call.name} ${JSON.stringify(call.args)}`;
    const count: number = row !== null && row.key === key ? row.count + 1 : 1;
    row = { key, count };
    if (policy === "off" || count < repeatLimit) continue;
    if (policy === "stop") return { refused, stopAt: i, row };
    refused[i] = true;
  }
  return { refused, stopAt: calls.length, row };
}

/**
 * How many runs end in each final state when the budget is no constraint. Every step the model
 * answers, refuses, or asks for one of the menu's replies with calls; the guard, when on, refuses
 * (or stops the run at) the `repeatLimit`-th identical call in a row, counted across replies; the
 * calls then go as `ordersOf` says. The caller may cancel whenever the run waits: for the model,
 * or inside a reply's calls.
 */
export function expectedEnds(setup: Setup): Ends {
  const { maxSteps, toolConcurrency = Number.POSITIVE_INFINITY } = setup;
  const memo = new Map<string, Ends>();
  const from = (k: number, row: Row): Ends => {
    if (k === maxSteps) return { ...none(), stepLimit: 1 };
    const key = JSON.stringify([k, row]);
    const known = memo.get(key);
    if (known !== undefined) return known;
    const ends = { ...none(), cancelled: 1, done: 1, refused: 1 };
    for (const reply of repliesAt(setup, k + 1).filter((r) => r.toolCalls.length > 0)) {
      const { refused, stopAt, row: last } = planReply(setup, row, reply.toolCalls);
      const risky = reply.toolCalls.map((call) => call.name === RISKY);
      const { complete, waits } = ordersOf(risky, refused, stopAt, toolConcurrency);
      ends.cancelled += waits;
      if (stopAt < reply.toolCalls.length) {
        ends.repeatedCall += complete;
        continue;
      }
      const after = from(k + 1, last);
      for (const end of FINAL_STATES) ends[end] += complete * after[end];
    }
    memo.set(key, ends);
    return ends;
  };
  return from(0, null);
}

/** How many of `paths` end in each final state. */
export function endsOf(paths: readonly Path[]): Ends {
  const ends = none();
  for (const p of paths) if (p.state.status === "done") ends[p.state.value as keyof Ends] += 1;
  return ends;
}

/**
 * Where a path takes calls up against the rules, checked in every state it settles in inside
 * `executingTools`: more calls in progress (running or waiting for a decision) than
 * `toolConcurrency`; a call taken up before one ahead of it; a call left waiting while there is
 * room for it; a refused call, or one at or after the call that stops the run, taken up at all;
 * `runningTools` with nothing running, `awaitingDecision` with something running or nothing to decide.
 */
export function takeUpProblems(setup: Setup, path: Path): string[] {
  const cap = setup.toolConcurrency ?? Number.POSITIVE_INFINITY;
  const problems: string[] = [];
  let row: Row = null;
  let plan: Planned | null = null;
  for (const [at, { event, state }] of path.steps.slice(1).entries()) {
    const where = { toString: () => `at event ${at} along ${JSON.stringify(outline(eventsAlong(path)))}` };
    if (event.type === "model.replied") {
      plan = planReply(setup, row, event.reply.toolCalls);
      row = plan.row;
    }
    if (plan === null || state.status !== "active" || !state.matches("executingTools")) continue;
    const stands = callStates(state);
    const running = stands.filter((s) => s === "running").length;
    const deciding = stands.filter((s) => s === "deciding").length;
    if (running + deciding > cap) problems.push(`${running + deciding} calls in progress ${where}`);
    if (state.matches(RUNNING) !== running > 0)
      problems.push(`${JSON.stringify(state.value)} with ${running} running ${where}`);
    if (!state.matches(RUNNING) && deciding === 0) problems.push(`awaitingDecision with nothing to decide ${where}`);
    let left = false;
    for (const [i, stand] of stands.entries()) {
      const free = !(plan.refused[i] === true) && i < plan.stopAt;
      if (!free && stand !== (plan.refused[i] === true ? "answered" : "waiting")) {
        problems.push(`call ${i} is ${stand} though it was ${plan.refused[i] ? "refused" : "after the stop"} ${where}`);
      }
      if (!free) continue;
      if (left && stand !== "waiting") problems.push(`call ${i} was taken up before a call ahead of it ${where}`);
      if (stand === "waiting") left = true;
    }
    if (left && running + deciding < cap) problems.push(`a call left waiting with room for it ${where}`);
  }
  return problems;
}

/**
 * Where a path runs a lookup that repeats: along the path, the rules count each lookup's row (the
 * same call in a row, across replies); a call whose row reaches the limit is never sent to run,
 * and under `stop` neither is any call after it.
 */
export function repeatProblems(setup: Setup, path: Path): string[] {
  const problems: string[] = [];
  let row: Row = null;
  let barred = new Set<number>();
  for (const { event, requests } of stepsOf(path)) {
    if (event.type === "model.replied") {
      const plan = planReply(setup, row, event.reply.toolCalls);
      row = plan.row;
      barred = new Set(event.reply.toolCalls.flatMap((_, i) => (plan.refused[i] || i >= plan.stopAt ? [i] : [])));
    }
    for (const { request, index } of requests) {
      if ((request.type === "runTool" || request.type === "requestDecision") && barred.has(index)) {
        problems.push(
          `call ${index} (${request.call.id}) taken up along ${JSON.stringify(outline(eventsAlong(path)))}`,
        );
      }
    }
  }
  return problems;
}
