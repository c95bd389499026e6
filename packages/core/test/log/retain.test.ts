import { describe, expect, it } from "vitest";
import { anchoredSnapshot, CARRIED, FROM_SETTINGS, NOT_CARRIED } from "../../src/decide/index.js";
import {
  continueAgent,
  EventLogError,
  type EventStore,
  forkRun,
  MemoryEventStore,
  type RunOptions,
  replayRun,
  resumeAgent,
  retain,
  runAgent,
  scriptedModel,
} from "../../src/index.js";
import { RunFold } from "../../src/machine.js";
import type { StoredEvent } from "../../src/store.js";
import { weatherScript as happyScript, makeWeatherRegistry, WEATHER_TASK as TASK } from "../../src/testing.js";

// retain: a finished run's events give way to one run.anchored that keeps its start, its last hash
// and the state it folded to; the log still verifies, lists, resumes, and its conversation goes on
// exactly as it would have from the whole log.

const FUTURE = new Date(Date.now() + 3_600_000);

/** Finished runs of many kinds: each exit, compaction, pricing, guardrails, prepareStep, a second turn. */
const SCENARIOS: Readonly<Record<string, Omit<RunOptions, "store" | "runId">>> = {
  done: {},
  stepLimit: { maxSteps: 1 },
  tokenBudget: { tokenBudget: 200 },
  compacted: { compaction: { triggerTokens: 150, strategy: "trim", keepRecent: 2 } },
  priced: { pricing: { default: { input: 1, output: 2 } } },
  prepared: { prepareStep: () => ({ activeTools: ["get_weather", "c_to_f"] }) },
  guarded: {
    guardrails: {
      output: [{ name: "no-fahrenheit", check: (text) => ({ tripped: text.includes("F"), reason: "F" }) }],
    },
  },
};

/** The run's events written again under the same id into a fresh store: the same log, hashes and all. */
async function copy(events: readonly StoredEvent[], runId: string): Promise<MemoryEventStore> {
  const store = new MemoryEventStore();
  for (const event of events) await store.append(runId, event);
  return store;
}

async function finishedRun(options: Omit<RunOptions, "store" | "runId">, turns = 1): Promise<MemoryEventStore> {
  const store = new MemoryEventStore();
  const { registry } = makeWeatherRegistry();
  await runAgent(TASK, scriptedModel(happyScript()), registry, { ...options, store, runId: "r" });
  for (let turn = 1; turn < turns; turn++) {
    await continueAgent("r", `Turn ${turn + 1}?`, scriptedModel(happyScript()), registry, { store });
  }
  return store;
}

const unstamped = (events: readonly StoredEvent[]) => events.map(({ seq: _s, at: _a, hash: _h, ...event }) => event);

describe("retain", () => {
  it("keeps in the anchor every key of the context a next turn reads: none is left out", () => {
    const listed = new Set<string>([...CARRIED, ...FROM_SETTINGS, ...NOT_CARRIED, "transcript", "prepared"]);
    const fold = new RunFold();
    const settings = { task: "t", system: "s", maxSteps: 1, tokenBudget: 100, tools: [] };
    fold.apply({ seq: 0, at: "2026-01-01T00:00:00.000Z", type: "run.started", schemaVersion: 3, settings });
    expect(Object.keys(fold.snapshot.context).filter((key) => !listed.has(key))).toEqual([]);
  });

  for (const [name, options] of Object.entries(SCENARIOS)) {
    it(`${name}: the anchored state is the folded one, and a next turn goes on from it as from the whole log`, async () => {
      const whole = await finishedRun(options, name === "done" ? 2 : 1);
      const events = await whole.read("r");
      const pruned = await copy(events, "r");
      expect(await retain(pruned, { olderThan: FUTURE })).toEqual({ pruned: ["r"] });
      const anchored = await pruned.read("r");
      expect(anchored).toHaveLength(1);
      expect(anchored[0]).toMatchObject({
        type: "run.anchored",
        seq: 0,
        events: events.length,
        tip: events.at(-1)?.hash,
      });
      // It verifies, and replays to the same result as the whole log.
      expect(replayRun(anchored, { runId: "r" }).result).toEqual(replayRun(events, { runId: "r" }).result);
      const folded = replayRun(events, { runId: "r" }).context;
      const restored = replayRun(anchored, { runId: "r" }).context;
      for (const key of [...CARRIED, ...FROM_SETTINGS, "prepared"] as const)
        expect(restored[key], key).toEqual(folded[key]);
      expect(restored.transcript.toJSON()).toEqual(folded.transcript.toJSON());
      // The next turn: the same result and the same events, from the anchor as from the whole log.
      const { registry } = makeWeatherRegistry();
      const next = () => scriptedModel(happyScript());
      const { prepareStep } = options;
      const fromWhole = await continueAgent("r", "And again?", next(), registry, { store: whole, prepareStep });
      const fromAnchor = await continueAgent("r", "And again?", next(), registry, { store: pruned, prepareStep });
      expect(fromAnchor).toEqual(fromWhole);
      const after = await pruned.read("r");
      expect(unstamped(after.slice(1))).toEqual(unstamped((await whole.read("r")).slice(events.length)));
      expect(after.map((event) => event.seq)).toEqual(after.map((_, index) => index));
      expect(replayRun(after, { runId: "r" }).result).toEqual(replayRun(await whole.read("r"), { runId: "r" }).result);
    });
  }

  it("prunes a run pruned and continued again, counting every event it ever stood for", async () => {
    const store = await finishedRun({});
    const length = (await store.read("r")).length;
    await retain(store, { olderThan: FUTURE });
    const { registry } = makeWeatherRegistry();
    await continueAgent("r", "More?", scriptedModel(happyScript()), registry, { store });
    const continued = await store.read("r");
    expect(await retain(store, { olderThan: FUTURE })).toEqual({ pruned: ["r"] });
    const [anchor] = await store.read("r");
    expect(anchor).toMatchObject({ type: "run.anchored", events: length + continued.length - 1, turns: 2 });
    expect(replayRun(await store.read("r"), { runId: "r" }).result?.messages).toEqual(
      replayRun(continued, { runId: "r" }).result?.messages,
    );
  });

  it("lists a pruned run as finished, with its task and start; resumeAgent gives its result back, logging nothing", async () => {
    const store = await finishedRun({});
    const [before] = await store.list();
    await retain(store, { olderThan: FUTURE });
    const [after] = await store.list();
    expect(after).toEqual({ ...before, events: 1 });
    const { registry } = makeWeatherRegistry();
    const resumed = await resumeAgent("r", scriptedModel([]), registry, { store });
    expect(resumed.answer).toBe("It is 86 F in Pune.");
    expect(await store.read("r")).toHaveLength(1);
  });

  it("leaves runs that finished after olderThan, runs not finished, runs pruned already and runs another writer holds", async () => {
    const store = await finishedRun({});
    expect(await retain(store, { olderThan: new Date(0) })).toEqual({ pruned: [] });
    const { registry } = makeWeatherRegistry();
    // A model that fails leaves its run unfinished.
    const failed = runAgent(TASK, scriptedModel([]), registry, { store, runId: "cut" });
    await expect(failed).rejects.toThrow();
    const cut = await store.read("cut");
    const lock = await store.acquire("r");
    expect((await retain(store, { olderThan: FUTURE })).pruned).not.toContain("r");
    await lock.release();
    expect((await retain(store, { olderThan: FUTURE })).pruned).toContain("r");
    expect(await retain(store, { olderThan: FUTURE })).toEqual({ pruned: [] });
    expect(await store.read("cut")).toEqual(cut);
  });

  it("refuses a store without prune, and an olderThan that is not a date", async () => {
    const memory = new MemoryEventStore();
    const plain: EventStore = {
      append: memory.append.bind(memory),
      read: memory.read.bind(memory),
      list: memory.list.bind(memory),
    };
    await expect(retain(plain, { olderThan: FUTURE })).rejects.toThrow(TypeError);
    await expect(retain(memory, { olderThan: new Date(Number.NaN) })).rejects.toThrow(RangeError);
  });

  it("forkRun refuses a pruned run: the events a fork copies are gone", async () => {
    const store = await finishedRun({});
    await retain(store, { olderThan: FUTURE });
    await expect(forkRun(store, "r")).rejects.toThrow(/was pruned by retain/);
  });

  it("a changed anchor, or one moved to another run, does not verify", async () => {
    const store = await finishedRun({});
    await retain(store, { olderThan: FUTURE });
    const [anchor] = (await store.read("r")) as [Extract<StoredEvent, { type: "run.anchored" }>];
    const changed = { ...anchor, state: { ...anchor.state, messages: anchor.state.messages.slice(0, -1) } };
    const damaged = new MemoryEventStore();
    await damaged.append("r", changed);
    await expect(damaged.read("r")).rejects.toThrow(/event 0 does not match its hash/);
    const moved = new MemoryEventStore();
    await moved.append("other", anchor);
    await expect(moved.read("other")).rejects.toThrow(EventLogError);
    await expect(moved.read("other")).rejects.toThrow(/another run's/);
  });

  it("the anchored snapshot is in the final state of the run's status, with the run's result as output", async () => {
    const store = await finishedRun({ maxSteps: 1 });
    await retain(store, { olderThan: FUTURE });
    const [anchor] = (await store.read("r")) as [Extract<StoredEvent, { type: "run.anchored" }>];
    const snapshot = anchoredSnapshot(anchor.started.settings, anchor.started.schemaVersion, anchor.state);
    expect([snapshot.value, snapshot.status, snapshot.output?.status]).toEqual(["stepLimit", "done", "step_limit"]);
  });
});
