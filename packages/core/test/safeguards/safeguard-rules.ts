import { countTokens, type Decision, type Message, type ToolCall } from "../../src/index.js";
import { DEFAULT_SYSTEM } from "../../src/machine.js";
import {
  closedOf,
  cut,
  decisionOf,
  denialOf,
  HANG_TIMEOUT_MS,
  LONG_MAX_CHARS,
  type Plan,
  type PlannedCall,
  type PlannedReply,
  repeatRefusalOf,
  reserveOf,
  TOOL_NAMES,
  timedOutOf,
  toolMessage,
} from "./safeguard-plans.js";

/**
 * What a safeguard plan must give, from the rules alone: which calls run, what each observation
 * says, where a run pauses, stops or ends, and what is invoked (the model, a tool, the approver).
 */

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
      return cut(JSON.stringify({ sent: call.args.to }), limit);
    case "unknown":
      return cut(`ERROR: unknown tool 'nope'. Available tools: [${TOOL_NAMES.map((n) => `'${n}'`).join(", ")}]`, limit);
  }
}

/** A call the rules have not answered yet when something is invoked, and what it says if it is answered already (a refused repeat). */
export interface Open {
  readonly call: ToolCall;
  readonly content: string | undefined;
}

/** A point of the expected run where something is invoked: the model, a tool function or the approver. */
export interface Invocation {
  readonly kind: "model" | "tool" | "approver";
  /** The model call it belongs to (1 for the first). */
  readonly step: number;
  /** One call at a time only: the messages before it, and the calls of the current reply with no tool message yet. */
  readonly messages: readonly Message[];
  readonly open: readonly Open[];
  readonly steps: number;
  readonly tokens: number;
  /** Tool functions invoked before it (itself included, for a tool). */
  readonly executed: number;
}

export interface Pause {
  readonly messages: readonly Message[];
  /** The calls that wait for a decision, in call order. */
  readonly pending: readonly ToolCall[];
  readonly steps: number;
  readonly tokens: number;
  readonly executed: number;
  /** Invocations made by the time the run pauses. */
  readonly invoked: number;
}

export interface Expected {
  readonly status: "done" | "step_limit" | "token_budget" | "repeated_call";
  readonly answer: string | null;
  readonly steps: number;
  readonly tokens: number;
  readonly messages: readonly Message[];
  /** Every tool function invocation as `name args`: in order one call at a time; else in some order. */
  readonly executions: readonly string[];
  readonly invocations: readonly Invocation[];
  /** Where the run pauses (no decision from the approver), in order; a resume decides all the calls that wait. */
  readonly pauses: readonly Pause[];
}

/**
 * The ids the run gives a reply's calls, by the documented rule: the model's id unless it is blank
 * or used already in the conversation; otherwise `call_<position>_<index>` (the reply's place in
 * the list, the call's in the reply), followed by `_1`, `_2`, … while that is taken.
 */
export function assignIds(calls: readonly ToolCall[], taken: Set<string>, position: number): ToolCall[] {
  return calls.map((call, index) => {
    let id = call.id.trim() !== "" && !taken.has(call.id) ? call.id : `call_${position}_${index}`;
    for (let n = 1; taken.has(id); n++) id = `call_${position}_${index}_${n}`;
    taken.add(id);
    return { ...call, id };
  });
}

function keyOf(call: ToolCall): string {
  return JSON.stringify([call.name, Object.entries(call.args).sort(([a], [b]) => (a < b ? -1 : 1))]);
}

/**
 * The run the rules give for `plan` when nothing cancels it and every pause is resumed with the
 * later decisions. A reply's calls are taken up in call order while fewer than `toolConcurrency`
 * wait for a decision nobody gave (the others are answered, sooner or later); the run pauses when
 * nothing more can be taken up and some call waits; a resume decides every call that waits.
 */
export function expectedRun(plan: Plan, specsTokens: number): Expected {
  const guard = plan.repeatLimit !== null || plan.onRepeatedCall !== null;
  const limit = plan.repeatLimit ?? 3;
  const cap = plan.toolConcurrency ?? Number.POSITIVE_INFINITY;
  const reserve = reserveOf(plan);
  const script: PlannedReply[] = [...plan.replies, { content: "the end", calls: [], usage: null }];
  const messages: Message[] = [
    { role: "system", content: DEFAULT_SYSTEM },
    ...plan.history,
    { role: "user", content: plan.task },
  ];
  const taken = new Set(plan.history.flatMap((m) => (m.role === "assistant" ? m.toolCalls.map((c) => c.id) : [])));
  const executions: string[] = [];
  const invocations: Invocation[] = [];
  const pauses: Pause[] = [];
  let steps = 0;
  let tokens = 0;
  let row: { key: string; count: number } | null = null;
  const end = (status: Expected["status"], answer: string | null = null): Expected => ({
    ...{ status, answer, steps, tokens, messages, executions, invocations, pauses },
  });
  for (const planned of script) {
    if (steps >= plan.maxSteps) return end("step_limit");
    const prompt = specsTokens + countTokens(messages);
    if (tokens + prompt + reserve > plan.tokenBudget) return end("token_budget");
    const here = { steps, tokens, executed: executions.length, messages: [...messages], open: [] };
    invocations.push({ kind: "model", step: steps + 1, ...here });
    const sent = planned.calls.map((c) => c.call);
    const calls = assignIds(sent, taken, messages.length);
    const assistant: Message = { role: "assistant", content: planned.content, toolCalls: calls };
    messages.push(assistant);
    steps += 1;
    // The model reports usage for the reply it sent, before the run gave its calls their ids.
    const sentTokens = countTokens({ role: "assistant", content: planned.content, toolCalls: sent });
    tokens +=
      planned.usage === null
        ? prompt + countTokens(assistant)
        : Math.max(0, prompt - planned.usage.lessIn) + Math.max(0, sentTokens - planned.usage.lessOut);
    if (calls.length === 0) return end("done", planned.content);
    // The repeat guard plans the reply's calls when it comes: refused ones are answered at once.
    const contents: (string | undefined)[] = calls.map(() => undefined);
    let stopAt = calls.length;
    for (const [j, call] of calls.entries()) {
      const key = keyOf(call);
      const count: number = row !== null && row.key === key ? row.count + 1 : 1;
      row = { key, count };
      if (!guard || count < limit) continue;
      if (plan.onRepeatedCall === "stop") {
        stopAt = j;
        break;
      }
      contents[j] = repeatRefusalOf(call.name, limit);
    }
    const answeredHead = () => {
      const head = contents.indexOf(undefined);
      return calls.slice(0, head === -1 ? calls.length : head).map((c, j) => toolMessage(c, contents[j] as string));
    };
    const at = (j: number) => ({
      step: steps,
      steps,
      tokens,
      messages: [...messages, ...answeredHead()],
      open: calls.slice(j).map((call, k) => ({ call, content: contents[j + k] })),
    });
    const settle = (j: number, p: PlannedCall, decision: Decision) => {
      if (decision.approved) {
        executions.push(`risky ${JSON.stringify(p.call.args)}`);
        invocations.push({ kind: "tool", ...at(j), executed: executions.length });
        contents[j] = observationOf(plan, p);
      } else {
        contents[j] = denialOf("risky", decision.reason);
      }
    };
    let next = 0;
    let waiting: number[] = [];
    for (;;) {
      for (; next < stopAt && waiting.length < cap; next++) {
        const p = planned.calls[next] as PlannedCall;
        if (contents[next] !== undefined) continue;
        if (p.kind === "risky") {
          const given = plan.approver === "none" ? undefined : decisionOf(p);
          if (plan.approver !== "none")
            invocations.push({ kind: "approver", ...at(next), executed: executions.length });
          if (given === undefined) waiting.push(next);
          else settle(next, p, given);
          continue;
        }
        if (p.kind !== "unknown") {
          executions.push(`${p.call.name} ${JSON.stringify(p.call.args)}`);
          invocations.push({ kind: "tool", ...at(next), executed: executions.length });
        }
        contents[next] = observationOf(plan, p);
      }
      if (waiting.length === 0) break;
      const pending = waiting.map((j) => calls[j] as ToolCall);
      pauses.push({
        steps,
        tokens,
        messages: [...messages, ...answeredHead()],
        pending,
        executed: executions.length,
        invoked: invocations.length,
      });
      for (const j of waiting)
        settle(j, planned.calls[j] as PlannedCall, { approved: planned.calls[j]?.later === "approve" });
      waiting = [];
    }
    for (const [j, call] of calls.entries()) {
      messages.push(toolMessage(call, j < stopAt ? (contents[j] as string) : closedOf(call.name, "repeated")));
    }
    if (stopAt < calls.length) return end("repeated_call");
  }
  throw new Error("the script always ends with an answer");
}
