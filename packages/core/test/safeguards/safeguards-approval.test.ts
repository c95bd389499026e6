import { describe, expect, it } from "vitest";
import {
  type AgentResult,
  type Approver,
  asks,
  EventLogError,
  final,
  MemoryEventStore,
  type ModelReply,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  type ToolCall,
  type ToolRegistry,
  toolCall,
} from "../../src/index.js";
import type { StoredEvent } from "../../src/store.js";
import { makeMailRegistry } from "../../src/testing.js";
import { comparable, movedTo, observationOf, traceProblem } from "../run/trace.js";

const denial = (reason?: string) =>
  `ERROR: the user denied this call to send_email${reason === undefined ? "" : ` (${reason})`}, so it was not run. Do not ask for it again; answer without it or ask the user what to do.`;

/** `send_email` needs approval; `lookup` does not; `sent` lists every email really sent, by recipient. */
function tools(options: { needsApproval?: boolean } = {}) {
  const { registry, sent } = makeMailRegistry(options);
  const looked: string[] = [];
  registry.register("lookup", "Look up.", { type: "object" }, () => {
    looked.push("lookup");
    return "found";
  });
  return { registry, sent, looked };
}

const e1 = toolCall("e1", "send_email", { to: "ana" });
const e2 = toolCall("e2", "send_email", { to: "all" });
/** Two calls that need approval in one reply, with a plain call before and after them. */
const script = (): ModelReply[] => [asks(toolCall("l1", "lookup"), e1, e2, toolCall("l2", "lookup")), final("Sent.")];

function decisionsIn(log: readonly StoredEvent[]) {
  return log.flatMap((e) => (e.type === "approval.decided" ? [{ callId: e.callId, approved: e.approved }] : []));
}

/** A paused run with two calls waiting, kept in `store` as `runId`. */
async function pausedRun(store: MemoryEventStore, runId: string, registry: ToolRegistry): Promise<AgentResult> {
  const paused = await runAgent("Email the team.", scriptedModel(script()), registry, { store, runId });
  expect(paused.status).toBe("awaiting_approval");
  return paused;
}

describe("approval with an approver function", () => {
  it("approved: the call runs once, after the approver saw it; the decision is logged before it runs", async () => {
    const { registry, sent } = tools();
    const asked: ToolCall[] = [];
    const store = new MemoryEventStore();
    const result = await runAgent("t", scriptedModel([asks(e1), final("ok")]), registry, {
      approve: (call) => {
        asked.push(call);
        expect(sent).toEqual([]);
        return { approved: true };
      },
      store,
      runId: "a",
    });
    expect(asked).toEqual([e1]);
    expect(sent).toEqual(["ana"]);
    expect(observationOf(result.messages, "e1")).toBe('{"sent":"ana"}');
    const types = (await store.read("a")).map((e) => e.type);
    expect(types.slice(2, 5)).toEqual(["approval.decided", "tool.started", "tool.finished"]);
  });

  it("denied: nothing runs, and the observation says the user denied it, with the reason when given", async () => {
    const { registry, sent } = tools();
    for (const [reason, expected] of [
      ["not today", denial("not today")],
      [undefined, denial()],
    ] as const) {
      const result = await runAgent("t", scriptedModel([asks(e1), final("ok")]), registry, {
        approve: () => (reason === undefined ? { approved: false } : { approved: false, reason }),
      });
      expect(observationOf(result.messages, "e1")).toBe(expected);
      expect(result.status).toBe("done");
    }
    expect(sent).toEqual([]);
  });

  it("an async approver is awaited in awaitingApproval; calls that need no approval never ask", async () => {
    const { registry, sent, looked } = tools();
    const states: unknown[] = [];
    const asked: string[] = [];
    const approve: Approver = async (call) => {
      asked.push(call.id);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { approved: call.id === "e1" };
    };
    const result = await runAgent("t", scriptedModel(script()), registry, {
      approve,
      inspect: (event) => {
        if (event.type === "@xstate.snapshot") states.push((event.snapshot as { value?: unknown }).value);
      },
    });
    expect(asked).toEqual(["e1", "e2"]);
    expect([sent, looked]).toEqual([["ana"], ["lookup", "lookup"]]);
    expect(observationOf(result.messages, "e2")).toBe(denial());
    expect(states).toContainEqual({ executingTools: "awaitingDecision" });
  });
});

describe("approval without an approver: the run pauses and is resumed with decisions", () => {
  it("pauses with awaiting_approval and both parallel calls pending; nothing risky ran; the log just stops", async () => {
    const { registry, sent, looked } = tools();
    const store = new MemoryEventStore();
    const paused = await pausedRun(store, "p", registry);
    expect(paused.pendingApprovals).toEqual([e1, e2]);
    expect([paused.answer, paused.steps, paused.runId]).toEqual([null, 1, "p"]);
    // Both plain calls ran while the two others waited; l2's result is logged, and joins the list
    // after e1's and e2's, in call order.
    expect([sent, looked]).toEqual([[], ["lookup", "lookup"]]);
    // The list so far: the first plain call has its result, the two waiting calls have none yet.
    expect(paused.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(traceProblem(paused.messages, true)).toBeNull();
    const log = await store.read("p");
    expect(log.at(-1)?.type).toBe("tool.finished");
    expect(
      log.filter((e) => e.type === "tool.finished").map((e) => (e.type === "tool.finished" ? e.callId : "")),
    ).toEqual(["l1", "l2"]);
    const replay = replayRun(log);
    expect(replay.result).toBeNull();
    expect(replay.snapshot.value).toEqual({ executingTools: "awaitingDecision" });
  });

  it("without a store it pauses the same way, with nothing to resume from", async () => {
    const { registry, sent } = tools();
    const paused = await runAgent("t", scriptedModel(script()), registry);
    expect([paused.status, paused.pendingApprovals, paused.runId]).toEqual(["awaiting_approval", [e1, e2], undefined]);
    expect(sent).toEqual([]);
  });

  it("resume with decisions runs the approved call once, denies the other, and logs each decision", async () => {
    const { registry, sent, looked } = tools();
    const store = new MemoryEventStore();
    await pausedRun(store, "r", registry);
    const result = await resumeAgent("r", scriptedModel(script().slice(1)), registry, {
      store,
      decisions: { e1: { approved: true }, e2: { approved: false, reason: "too many recipients" } },
    });
    expect([result.status, result.answer, result.steps]).toEqual(["done", "Sent.", 2]);
    expect(sent).toEqual(["ana"]);
    expect(looked).toEqual(["lookup", "lookup"]);
    expect(observationOf(result.messages, "e2")).toBe(denial("too many recipients"));
    const log = await store.read("r");
    expect(decisionsIn(log)).toEqual([
      { callId: "e1", approved: true },
      { callId: "e2", approved: false },
    ]);
    expect(log.find((e) => e.type === "approval.decided" && e.callId === "e2")).toMatchObject({
      reason: "too many recipients",
    });
    expect(replayRun(log).result).toEqual(comparable(result));
    // Resuming the finished run changes nothing and sends nothing.
    expect(await resumeAgent("r", scriptedModel([]), registry, { store })).toEqual(result);
    expect(sent).toEqual(["ana"]);
  });

  it("a decision for one call only: it runs, and the run pauses again for the other", async () => {
    const { registry, sent } = tools();
    const store = new MemoryEventStore();
    await pausedRun(store, "one", registry);
    const again = await resumeAgent("one", scriptedModel(script().slice(1)), registry, {
      store,
      decisions: { e1: { approved: true } },
    });
    expect([again.status, again.pendingApprovals]).toEqual(["awaiting_approval", [e2]]);
    expect(sent).toEqual(["ana"]);
    const done = await resumeAgent("one", scriptedModel(script().slice(1)), registry, {
      store,
      decisions: { e2: { approved: true } },
    });
    expect(done.status).toBe("done");
    expect(sent).toEqual(["ana", "all"]);
    expect(decisionsIn(await store.read("one")).map((d) => d.callId)).toEqual(["e1", "e2"]);
  });

  it("an approver that decides some calls and not others: the run pauses at the first undecided one", async () => {
    const { registry, sent } = tools();
    const store = new MemoryEventStore();
    const approve: Approver = (call) => (call.id === "e1" ? { approved: true } : undefined);
    const paused = await runAgent("t", scriptedModel(script()), registry, { approve, store, runId: "mixed" });
    expect([paused.status, paused.pendingApprovals]).toEqual(["awaiting_approval", [e2]]);
    expect(sent).toEqual(["ana"]);
    const done = await resumeAgent("mixed", scriptedModel(script().slice(1)), registry, {
      store,
      approve,
      decisions: { e2: { approved: false } },
    });
    expect(done.status).toBe("done");
    expect(sent).toEqual(["ana"]);
  });

  it("no decision, or an approver that gives none (undefined or null): the run stays paused, nothing runs", async () => {
    const { registry, sent } = tools();
    const store = new MemoryEventStore();
    const paused = await pausedRun(store, "stay", registry);
    const log = await store.read("stay");
    for (const options of [{}, { approve: () => undefined }, { approve: () => null }]) {
      const again = await resumeAgent("stay", scriptedModel(script().slice(1)), registry, { store, ...options });
      expect(again).toEqual(paused);
    }
    expect(sent).toEqual([]);
    expect(await store.read("stay")).toEqual(log);
  });

  it("a decision for a call that waits for none is refused, naming the calls that wait; nothing is logged", async () => {
    const { registry, sent } = tools();
    const store = new MemoryEventStore();
    await pausedRun(store, "nope", registry);
    const log = await store.read("nope");
    await expect(
      resumeAgent("nope", scriptedModel(script().slice(1)), registry, {
        store,
        decisions: { e1: { approved: true }, nope: { approved: true } },
      }),
    ).rejects.toThrow(/call 'nope' waits for no decision \(calls that wait: 'e1', 'e2'\)/);
    expect(sent).toEqual([]);
    expect(await store.read("nope")).toEqual(log);
  });

  it("a registry that no longer requires approval for the tool cannot resume the run", async () => {
    const { registry } = tools();
    const store = new MemoryEventStore();
    await pausedRun(store, "flags", registry);
    const lax = tools({ needsApproval: false });
    await expect(resumeAgent("flags", scriptedModel(script().slice(1)), lax.registry, { store })).rejects.toThrow(
      EventLogError,
    );
    expect(lax.sent).toEqual([]);
  });
});

describe("approval across crashes: an approved call is never lost and never run twice", () => {
  /** The log of a run that approved e1 and e2 and finished, and a store holding its first `keep` events. */
  async function crashedAfter(keep: (log: readonly StoredEvent[]) => number, toolConcurrency?: number) {
    const original = tools();
    const store = new MemoryEventStore();
    await runAgent("t", scriptedModel(script()), original.registry, {
      approve: () => ({ approved: true }),
      store,
      runId: "full",
      ...(toolConcurrency === undefined ? {} : { toolConcurrency }),
    });
    const log = await store.read("full");
    const crashed = new MemoryEventStore();
    for (const event of movedTo("crash", log.slice(0, keep(log)))) await crashed.append("crash", event);
    return { log, crashed };
  }

  it("cut after e1's approval.decided: e1 runs once in the new process; no decision is asked again", async () => {
    const at = (log: readonly StoredEvent[]) =>
      log.findIndex((e) => e.type === "approval.decided" && e.callId === "e1") + 1;
    const { crashed } = await crashedAfter(at);
    const { registry, sent } = tools();
    const asked: string[] = [];
    const result = await resumeAgent("crash", scriptedModel(script().slice(1)), registry, {
      store: crashed,
      approve: (call) => {
        asked.push(call.id);
        return { approved: true };
      },
    });
    expect(result.status).toBe("done");
    expect(sent).toEqual(["ana", "all"]);
    expect(asked).toEqual(["e2"]);
    expect(decisionsIn(await crashed.read("crash")).map((d) => d.callId)).toEqual(["e1", "e2"]);
  });

  it("cut after e1's tool.started, one call at a time: e1 is not run again (its result is reported lost); e2 still needs its decision", async () => {
    const at = (log: readonly StoredEvent[]) =>
      log.findIndex((e) => e.type === "tool.started" && e.callId === "e1") + 1;
    // One at a time, e2's decision is asked for only after e1 is answered: the cut comes before it.
    const { crashed } = await crashedAfter(at, 1);
    const { registry, sent } = tools();
    const paused = await resumeAgent("crash", scriptedModel(script().slice(1)), registry, { store: crashed });
    expect([paused.status, paused.pendingApprovals]).toEqual(["awaiting_approval", [e2]]);
    expect(sent).toEqual([]);
    expect(observationOf(paused.messages, "e1")).toMatch(/^ERROR: the result of send_email was lost/);
    const done = await resumeAgent("crash", scriptedModel(script().slice(1)), registry, {
      store: crashed,
      decisions: { e2: { approved: true } },
    });
    expect(done.status).toBe("done");
    expect(sent).toEqual(["all"]);
  });

  it("cut anywhere: resuming with approvals runs each call at most once over both processes, only when approved", async () => {
    const { log } = await crashedAfter(() => 0);
    for (let keep = 1; keep < log.length; keep += 1) {
      const crashed = new MemoryEventStore();
      for (const event of movedTo("crash", log.slice(0, keep))) await crashed.append("crash", event);
      const before = log.slice(0, keep).filter((e) => e.type === "tool.started" && e.callId.startsWith("e"));
      const { registry, sent } = tools();
      const decided = new Set(decisionsIn(log.slice(0, keep)).map((d) => d.callId));
      const asked: string[] = [];
      const result = await resumeAgent(
        "crash",
        scriptedModel(script().slice(log.slice(0, keep).some((e) => e.type === "model.replied") ? 1 : 0)),
        registry,
        {
          store: crashed,
          approve: (call) => {
            asked.push(call.id);
            return { approved: true };
          },
        },
      );
      expect(result.status, `kept ${keep}`).toBe("done");
      // Calls already started before the crash are not run again; every other one runs exactly once.
      const started = new Set(before.map((e) => (e.type === "tool.started" ? e.callId : "")));
      expect(sent, `kept ${keep}`).toEqual([e1, e2].filter((c) => !started.has(c.id)).map((c) => String(c.args.to)));
      // A decision in the log is never asked for again; every other one is asked once.
      expect(asked, `kept ${keep}`).toEqual(["e1", "e2"].filter((id) => !decided.has(id)));
      const decisions = decisionsIn(await crashed.read("crash")).map((d) => d.callId);
      expect(decisions, `kept ${keep}`).toEqual(["e1", "e2"]);
    }
  });
});
