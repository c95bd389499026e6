import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  asks,
  type EventStore,
  final,
  MemoryEventStore,
  type Message,
  type Model,
  type ModelReply,
  replayRun,
  resumeUnfinished,
  runAgent,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { runHashSeed, type StoredEvent, stampEvent } from "../../src/store.js";
import { JsonlEventStore } from "../../src/stores/jsonl-store.js";
import { WEATHER_TASK as TASK } from "../../src/testing.js";

// resumeUnfinished: a sweep takes over the runs whose process died mid-step, each under its lock,
// and leaves those that wait for a person, those another writer holds, children and finished runs.

const SCRIPT: readonly ModelReply[] = [
  asks(toolCall("c1", "get_weather", { city: "Pune" })),
  asks(toolCall("c2", "send_mail", { to: "ops" })),
  final("It is 86 F in Pune."),
];

/** Answers by position, as a real model answers from the list it is shown: a resumed run goes on where its log ends. */
const model: Model = (messages: readonly Message[]) => {
  const reply = SCRIPT[messages.filter((message) => message.role === "assistant").length];
  if (reply === undefined) throw new Error("no reply scripted");
  return reply;
};

/** Two tools; `send_mail` needs approval when asked. Every real execution is counted by `runId/name`. */
function tools(options: { approval?: boolean } = {}) {
  const ran: string[] = [];
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    () => {
      ran.push("get_weather");
      return { celsius: 30 };
    },
  );
  registry.register(
    "send_mail",
    "Mails a note.",
    { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    () => {
      ran.push("send_mail");
      return "sent";
    },
    { needsApproval: options.approval === true },
  );
  return { registry, ran };
}

/** The events of a whole run of the script, as a dead process would have left the first `keep` of them. */
async function wholeRun(options: { approval?: boolean } = {}): Promise<StoredEvent[]> {
  const store = new MemoryEventStore();
  const approve = options.approval === true ? () => ({ approved: true }) : undefined;
  await runAgent(TASK, model, tools(options).registry, { store, runId: "whole", approve });
  return store.read("whole");
}

/** Writes `events` (stamped for run `whole`) again under `runId`, restamped so that their chain is the new run's. */
async function copyInto(store: EventStore, runId: string, events: readonly StoredEvent[]): Promise<void> {
  let previous = runHashSeed(runId);
  for (const { seq, at, hash: _hash, ...event } of events) {
    const stamped = stampEvent(event, seq, at, previous);
    await store.append(runId, stamped);
    previous = stamped.hash ?? previous;
  }
}

const finishedCount = (events: readonly StoredEvent[]) => events.filter((e) => e.type === "run.finished").length;

describe("resumeUnfinished", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("takes over a run cut after any event before its end, running no logged call again, and leaves finished runs unlisted", async () => {
    const whole = await wholeRun();
    const store = new MemoryEventStore();
    const cuts = Array.from({ length: whole.length - 1 }, (_, index) => index + 1);
    for (const keep of cuts) await copyInto(store, `cut-${keep}`, whole.slice(0, keep));
    await copyInto(store, "finished", whole);
    const { registry, ran } = tools();
    const result = await resumeUnfinished(store, { model, registry });
    expect(result.resumed.sort()).toEqual(cuts.map((keep) => `cut-${keep}`).sort());
    expect(result.skipped).toEqual([]);
    for (const keep of cuts) {
      const events = await store.read(`cut-${keep}`);
      expect(finishedCount(events), `cut after ${keep}`).toBe(1);
      expect(replayRun(events, { runId: `cut-${keep}` }).result?.answer).toBe("It is 86 F in Pune.");
    }
    // Each call runs only where its log holds no tool.started for it (a started call's result is lost, never run again).
    const started = (name: string) =>
      cuts.filter((keep) => whole.slice(0, keep).some((e) => e.type === "tool.started" && e.name === name));
    expect(ran.filter((name) => name === "get_weather")).toHaveLength(cuts.length - started("get_weather").length);
    expect(ran.filter((name) => name === "send_mail")).toHaveLength(cuts.length - started("send_mail").length);
    expect(await resumeUnfinished(store, { model, registry })).toEqual({ resumed: [], skipped: [] });
  });

  it("leaves a run that waits for a decision, its log untouched, and lists it as skipped", async () => {
    const store = new MemoryEventStore();
    const { registry } = tools({ approval: true });
    const paused = await runAgent(TASK, model, registry, { store, runId: "waits" });
    expect(paused.status).toBe("awaiting_approval");
    const before = await store.read("waits");
    const result = await resumeUnfinished(store, { model, registry, options: { approve: () => ({ approved: true }) } });
    expect(result).toEqual({ resumed: [], skipped: ["waits"] });
    expect(await store.read("waits")).toEqual(before);
  });

  it("leaves a run another writer holds, and takes it once that writer is gone", async () => {
    const whole = await wholeRun();
    const store = new MemoryEventStore();
    await copyInto(store, "held", whole.slice(0, 3));
    const lock = await store.acquire("held");
    const { registry } = tools();
    expect(await resumeUnfinished(store, { model, registry })).toEqual({ resumed: [], skipped: ["held"] });
    await lock.release();
    expect(await resumeUnfinished(store, { model, registry })).toEqual({ resumed: ["held"], skipped: [] });
  });

  it("leaves a child run to its parent's resume", async () => {
    const store = new MemoryEventStore();
    const { registry } = tools();
    const started = await wholeRun();
    const first = started[0] as Extract<StoredEvent, { type: "run.started" }>;
    const { seq: _seq, at, hash: _hash, ...event } = first;
    await store.append(
      "child",
      stampEvent({ ...event, parent: { runId: "parent", callId: "c9" } }, 0, at, runHashSeed("child")),
    );
    expect(await resumeUnfinished(store, { model, registry })).toEqual({ resumed: [], skipped: ["child"] });
    expect(await store.read("child")).toHaveLength(1);
  });

  it("a run whose resume fails is skipped: told to onError, else thrown after the sweep as an AggregateError", async () => {
    const whole = await wholeRun();
    const store = new MemoryEventStore();
    await copyInto(store, "a-fails", whole.slice(0, 1));
    await copyInto(store, "b-goes-on", whole.slice(0, 1));
    const { registry } = tools();
    let calls = 0;
    const failsOnce: Model = (messages, specs, options) => {
      calls++;
      if (calls === 1) throw new Error("provider down");
      return model(messages, specs, options);
    };
    const told: string[] = [];
    const result = await resumeUnfinished(
      store,
      { model: failsOnce, registry },
      { onError: (runId) => told.push(runId) },
    );
    expect(result).toEqual({ resumed: ["b-goes-on"], skipped: ["a-fails"] });
    expect(told).toEqual(["a-fails"]);
    calls = 0;
    const thrown = await resumeUnfinished(store, { model: failsOnce, registry }).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(AggregateError);
    expect((thrown as AggregateError).errors).toHaveLength(1);
    expect(finishedCount(await store.read("a-fails"))).toBe(0);
  });

  it("an aborted signal takes no run", async () => {
    const whole = await wholeRun();
    const store = new MemoryEventStore();
    await copyInto(store, "cut", whole.slice(0, 2));
    const { registry, ran } = tools();
    const result = await resumeUnfinished(store, { model, registry }, { signal: AbortSignal.abort() });
    expect(result).toEqual({ resumed: [], skipped: [] });
    expect(ran).toEqual([]);
  });

  it("refuses a store that cannot lock a run", async () => {
    const memory = new MemoryEventStore();
    const unlocked: EventStore = {
      append: memory.append.bind(memory),
      read: memory.read.bind(memory),
      list: memory.list.bind(memory),
    };
    await expect(resumeUnfinished(unlocked, { model, registry: tools().registry })).rejects.toThrow(
      /needs a store that can lock/,
    );
  });

  it("two sweeps at once on one JSONL folder take every run exactly once between them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-sweep-"));
    dirs.push(dir);
    const whole = await wholeRun();
    const ids = Array.from({ length: 40 }, (_, index) => `run-${String(index).padStart(2, "0")}`);
    const writer = new JsonlEventStore(dir);
    for (const [index, runId] of ids.entries()) await copyInto(writer, runId, whole.slice(0, 1 + (index % 7)));
    const first = tools();
    const second = tools();
    const [a, b] = await Promise.all([
      resumeUnfinished(new JsonlEventStore(dir), { model, registry: first.registry }),
      resumeUnfinished(new JsonlEventStore(dir), { model, registry: second.registry }),
    ]);
    expect([...a.resumed, ...b.resumed].sort()).toEqual(ids);
    expect(a.resumed.filter((runId) => b.resumed.includes(runId))).toEqual([]);
    for (const runId of ids) expect(finishedCount(await writer.read(runId)), runId).toBe(1);
    // A call runs only in the runs whose log holds no tool.started for it: once, by one sweep.
    const unstarted = ids.map(
      (_, index) => 2 - whole.slice(0, 1 + (index % 7)).filter((e) => e.type === "tool.started").length,
    );
    expect(first.ran.length + second.ran.length).toBe(unstarted.reduce((sum, count) => sum + count, 0));
  });
});
