import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { initialTransition, transition } from "xstate";
import { type AgentResult, agentMachine, contentText, final, type Message, type ToolCall } from "../../src/index.js";
import { type AgentEvent, type AgentSnapshot, messagesOf } from "../../src/machine.js";
import { assistantOf, inputOf, makeRegistry, planArb, run } from "../run/spec-plans.js";
import { STATE_OF } from "../run/trace.js";

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
      // The driver logs whether an observation is an error, as data.
      const isError = message?.role === "tool" && message.isError === true;
      return { type: "tool.finished", callId: call.id, content, ...(isError ? { isError } : {}) };
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
  return { calls: open.calls, finished: new Map([...open.finished, [event.callId, contentText(event.content)]]) };
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
