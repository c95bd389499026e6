import { hostname } from "node:os";
import {
  asks,
  type EventStore,
  final,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import type { RunEvent, RunSummary, StoredEvent } from "@agentloop/core/store";
import { weatherScript as happyScript, makeWeatherRegistry, WEATHER_TASK as TASK } from "@agentloop/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BlobHooks, describeBlobContract } from "./blob-contract.js";
import { logError } from "./log-error.js";

export { logError };

/** A fresh, empty store under test, and how to let go of it. */
export interface StoreHarness {
  readonly store: EventStore;
  /** Hooks into where the store keeps a run's blobs (a durable store must give them): the blob damage cases run with them. */
  readonly blobs?: BlobHooks;
  /** Closes every store object the harness opened and removes its files. */
  close?(): void | Promise<void>;
}

/** A store that keeps runs beyond the object, with `repair`. */
export type RepairableStore = EventStore & { repair(runId: string): Promise<number> };

/** A durable store under test, with hooks that reach into its storage as a crash or a bad disk would. */
export interface DurableHarness extends StoreHarness {
  readonly store: RepairableStore;
  /** A new store object over the same file or directory. */
  reopen(): RepairableStore;
  /** Replaces the run's last entry with well-formed JSON that is not a valid event. */
  corruptLast(runId: string): void | Promise<void>;
  /** Cuts the run's last entry in the middle, as a crash inside a write would. */
  tearLast(runId: string): void | Promise<void>;
  /** How the store's error names a torn entry at 0-based `position` ("line 4", "event 3"). */
  tornEntry(position: number): string;
  readonly blobs: BlobHooks;
}

const TOOLS = [
  {
    name: "get_weather",
    description: "Current temperature of one city in Celsius.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
] as const;

// Text that trips up naive storage: a newline, NUL, an emoji, a lone surrogate, quotes and JSON.
const AWKWARD = 'line one\nline "two" \u0000 🌡️ \ud800 {"celsius":30}';

/** Stamps `event` as a shell would: position `seq`, and a time that grows with it. */
export function stamp(seq: number, event: RunEvent): StoredEvent {
  return { ...event, seq, at: new Date(Date.UTC(2026, 0, 2, 3, 4, seq)).toISOString() };
}

/**
 * A whole run logged with every event type of schema 1, an unlimited token budget and awkward
 * text. Schema 1 has no hash chain, so the same events can be appended to any run id; runs of the
 * current schema go through the stores in the tests that run `runAgent` on them.
 */
export function sampleLog(task = "How hot is Pune?"): StoredEvent[] {
  const events: RunEvent[] = [
    {
      type: "run.started",
      schemaVersion: 1,
      settings: { task, system: "Use the tools.", maxSteps: 4, tokenBudget: Number.POSITIVE_INFINITY, tools: TOOLS },
    },
    {
      type: "model.replied",
      reply: {
        content: "Looking it up.",
        toolCalls: [toolCall("c1", "get_weather", { city: "Pune" })],
        usage: { inputTokens: 12, outputTokens: 5 },
      },
    },
    { type: "tool.started", callId: "c1", name: "get_weather" },
    { type: "tool.finished", callId: "c1", content: AWKWARD },
    { type: "model.replied", reply: final("It is 86 F in Pune.") },
    { type: "run.finished", outcome: { status: "done", answer: "It is 86 F in Pune.", steps: 2, tokens: 99 } },
  ];
  return events.map((event, seq) => stamp(seq, event));
}

async function appendAll(store: EventStore, runId: string, events: readonly StoredEvent[]): Promise<void> {
  for (const event of events) await store.append(runId, event);
}

const byRunId = (a: RunSummary, b: RunSummary) => a.runId.localeCompare(b.runId);

/**
 * The contract every `EventStore` keeps; `make` opens a fresh, empty store for each test. With
 * `blobHooks`, each harness gives `blobs`, and the cases of a missing or changed blob run too.
 */
export function describeEventStore(
  name: string,
  make: () => Promise<StoreHarness>,
  options: { readonly blobHooks?: boolean } = {},
): void {
  describeBlobContract(name, make, options.blobHooks === true);
  describe(`${name} keeps the EventStore contract`, () => {
    let harness: StoreHarness;
    beforeEach(async () => {
      harness = await make();
    });
    afterEach(() => harness.close?.());

    it("reads back every event type as appended, an unlimited token budget as Infinity", async () => {
      const events = sampleLog();
      await appendAll(harness.store, "run-1", events);
      const read = await harness.store.read("run-1");
      expect(read).toEqual(events);
      const [started] = read;
      expect(started?.type === "run.started" && started.settings.tokenBudget).toBe(Number.POSITIVE_INFINITY);
      expect(read[3]).toMatchObject({ type: "tool.finished", content: AWKWARD });
    });

    it("reads [] for a run it never saw, and lists nothing while empty", async () => {
      expect(await harness.store.read("nobody")).toEqual([]);
      expect(await harness.store.list()).toEqual([]);
    });

    it("refuses an append whose seq is not the next position, and keeps the log as it was", async () => {
      const [first, second, third] = sampleLog();
      if (first === undefined || second === undefined || third === undefined) throw new Error("sample too short");
      const skipped = await logError(harness.store.append("run-1", second));
      expect(skipped).toMatchObject({ runId: "run-1", position: 1 });
      expect(skipped.message).toContain("'run-1'");
      await harness.store.append("run-1", first);
      await harness.store.append("run-1", second);
      expect(await logError(harness.store.append("run-1", second))).toMatchObject({ runId: "run-1", position: 1 });
      expect(await logError(harness.store.append("run-1", first))).toMatchObject({ runId: "run-1", position: 0 });
      expect(await harness.store.read("run-1")).toEqual([first, second]);
      await harness.store.append("run-1", third);
      expect(await harness.store.read("run-1")).toEqual([first, second, third]);
    });

    it("keeps runs apart, each counting its positions from 0", async () => {
      const a = sampleLog("task A");
      const b = sampleLog("task B").slice(0, 3);
      for (let i = 0; i < a.length; i++) {
        await harness.store.append("a", a[i] as StoredEvent);
        if (i < b.length) await harness.store.append("b", b[i] as StoredEvent);
      }
      expect(await harness.store.read("a")).toEqual(a);
      expect(await harness.store.read("b")).toEqual(b);
      expect(await harness.store.read("a.b")).toEqual([]);
    });

    it("lists each run with its task, start, event count, and outcome once it finished", async () => {
      const finished = sampleLog("finished task");
      const running = sampleLog("running task").slice(0, 4);
      await appendAll(harness.store, "run-finished", finished);
      await appendAll(harness.store, "run-running", running);
      const outcome = finished.at(-1)?.type === "run.finished" ? finished.at(-1) : undefined;
      expect((await harness.store.list()).sort(byRunId)).toEqual([
        {
          runId: "run-finished",
          task: "finished task",
          startedAt: finished[0]?.at,
          events: 6,
          outcome: outcome?.type === "run.finished" ? outcome.outcome : "missing",
        },
        { runId: "run-running", task: "running task", startedAt: running[0]?.at, events: 4, outcome: null },
      ]);
    });

    it("returns each event with its keys in the order they were written", async () => {
      // The journal's order (seq, at, type, fields), and another one: a store keeps whichever it got.
      const journalOrder = sampleLog().map(({ seq, at, ...event }) => ({ seq, at, ...event }) as StoredEvent);
      await appendAll(harness.store, "journal", journalOrder);
      await appendAll(harness.store, "stamped", sampleLog());
      expect(JSON.stringify(await harness.store.read("journal"))).toBe(JSON.stringify(journalOrder));
      expect(JSON.stringify(await harness.store.read("stamped"))).toBe(JSON.stringify(sampleLog()));
      expect(Object.keys((await harness.store.read("journal"))[0] ?? {})).toEqual([
        "seq",
        "at",
        "type",
        "schemaVersion",
        "settings",
      ]);
    });

    it("gives a run to one acquirer at a time, until it is released", async () => {
      const { store } = harness;
      if (store.acquire === undefined) throw new Error("the store has no acquire");
      const lock = await store.acquire("run-1");
      expect(lock.runId).toBe("run-1");
      const refused = await logError(store.acquire("run-1"));
      expect(refused).toMatchObject({ runId: "run-1" });
      expect(refused.message).toContain("run 'run-1' is being written elsewhere");
      const other = await store.acquire("run-2");
      await appendAll(store, "run-1", sampleLog().slice(0, 2));
      await lock.release();
      await lock.release(); // twice is harmless, and frees nobody else's lock
      const again = await store.acquire("run-1");
      await lock.release();
      await logError(store.acquire("run-1"));
      await again.release();
      await other.release();
      expect(await store.read("run-1")).toEqual(sampleLog().slice(0, 2));
    });

    it("keeps a whole runAgent run whose log replays to the live result", async () => {
      const { registry } = makeWeatherRegistry();
      const live = await runAgent(TASK, scriptedModel(happyScript()), registry, {
        store: harness.store,
        runId: "weather-1",
        tokenBudget: Number.POSITIVE_INFINITY,
      });
      expect(live).toMatchObject({ status: "done", runId: "weather-1" });
      const replay = replayRun(await harness.store.read("weather-1"), { runId: "weather-1" });
      expect({ ...replay.result, runId: "weather-1" }).toEqual(live);
      const [summary] = await harness.store.list();
      expect(summary).toMatchObject({ runId: "weather-1", task: TASK, outcome: { status: "done", steps: 3 } });
    });
  });
}

/** The contract of a store that keeps runs on disk: all of `describeEventStore`, then durability and repair. */
export function describeDurableStore(name: string, make: () => Promise<DurableHarness>): void {
  describeEventStore(name, make, { blobHooks: true });

  describe(`${name} keeps runs durably and reports a broken one`, () => {
    let harness: DurableHarness;
    beforeEach(async () => {
      harness = await make();
    });
    afterEach(() => harness.close?.());

    it("serves every run to a new store object over the same storage, which goes on appending", async () => {
      const a = sampleLog("task A");
      const b = sampleLog("task B").slice(0, 2);
      await appendAll(harness.store, "a", a);
      await appendAll(harness.store, "b", b);
      const reopened = harness.reopen();
      expect(await reopened.read("a")).toEqual(a);
      expect(await reopened.read("b")).toEqual(b);
      expect((await reopened.list()).sort(byRunId)).toEqual((await harness.store.list()).sort(byRunId));
      const next = sampleLog("task B")[2] as StoredEvent;
      expect(await logError(reopened.append("b", { ...next, seq: 1 }))).toMatchObject({ position: 1 });
      await reopened.append("b", next);
      expect(await harness.reopen().read("b")).toEqual([...b, next]);
    });

    it("keeps a whole runAgent run that a new store object replays to the live result", async () => {
      const { registry } = makeWeatherRegistry();
      const live = await runAgent(TASK, scriptedModel(happyScript()), registry, {
        store: harness.store,
        runId: "weather-1",
      });
      const replay = replayRun(await harness.reopen().read("weather-1"), { runId: "weather-1" });
      expect({ ...replay.result, runId: "weather-1" }).toEqual(live);
    });

    it("one writer across store objects: another object's acquire and append are refused, naming who holds the run", async () => {
      const [first, second] = sampleLog();
      if (first === undefined || second === undefined) throw new Error("sample too short");
      const other = harness.reopen();
      if (harness.store.acquire === undefined) throw new Error("the store has no acquire");
      const lock = await harness.store.acquire("run-1");
      await harness.store.append("run-1", first);
      for (const refused of [
        await logError(other.acquire?.("run-1") ?? Promise.resolve()),
        await logError(other.append("run-1", second)),
      ]) {
        expect(refused).toMatchObject({ runId: "run-1" });
        expect(refused.message).toContain("run 'run-1' is being written elsewhere");
        expect(refused.message).toContain(`process ${process.pid} on host '${hostname()}' since 20`);
      }
      await harness.store.append("run-1", second);
      await lock.release();
      await other.append("run-1", stamp(2, { type: "tool.started", callId: "c1", name: "get_weather" }));
      const taken = await other.acquire?.("run-1");
      await taken?.release();
      expect(await harness.reopen().read("run-1")).toHaveLength(3);
    });

    it("two store objects appending the same seq at once: one is refused, and the log holds it once", async () => {
      const events = sampleLog();
      const objects = [harness.store, harness.reopen(), harness.reopen()];
      for (let seq = 0; seq < events.length; seq++) {
        const event = events[seq] as StoredEvent;
        const outcomes = await Promise.allSettled(objects.map((store) => store.append("run-1", event)));
        expect(
          outcomes.filter((outcome) => outcome.status === "fulfilled"),
          `seq ${seq}`,
        ).toHaveLength(1);
        for (const outcome of outcomes) {
          if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ name: "EventLogError" });
        }
      }
      expect(await harness.reopen().read("run-1")).toEqual(events);
    });

    it("runAgent and resumeAgent hold the run: no other object can write it meanwhile", async () => {
      const other = harness.reopen();
      const registry = new ToolRegistry();
      const attempts: string[] = [];
      registry.register(
        "intrude",
        "Appends to this run through another store object.",
        { type: "object" },
        async () => {
          const refused = await logError(other.append("held", stamp(3, { type: "run.cancelled" })));
          attempts.push(refused.message);
          return "refused";
        },
      );
      const script = [asks(toolCall("c1", "intrude", {})), final("done")];
      const live = await runAgent(TASK, scriptedModel(script), registry, { store: harness.store, runId: "held" });
      expect(live.status).toBe("done");
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toContain("run 'held' is being written elsewhere");
      // Released at the end: another object may take the run now, and resume is refused meanwhile.
      const lock = await other.acquire?.("held");
      const refused = await logError(resumeAgent("held", scriptedModel([]), registry, { store: harness.store }));
      expect(refused.message).toContain("run 'held' is being written elsewhere");
      await lock?.release();
      expect(await resumeAgent("held", scriptedModel([]), registry, { store: harness.store })).toEqual(live);
    });

    for (const damage of ["corrupt", "torn"] as const) {
      it(`reports a ${damage} last entry with the run and its position, keeping the events before it`, async () => {
        const events = sampleLog();
        await appendAll(harness.store, "run-1", events);
        await appendAll(harness.store, "run-2", events);
        await damageLast(harness, damage, "run-1");
        for (const store of [harness.store, harness.reopen()]) {
          const error = await logError(store.read("run-1"));
          expect(error).toMatchObject({ runId: "run-1", position: 5 });
          expect(error.intact).toEqual(events.slice(0, 5));
          expect(error.message).toContain("run 'run-1'");
          expect(error.message).toContain(damage === "torn" ? harness.tornEntry(5) : "event 5");
        }
        expect(await harness.store.read("run-2")).toEqual(events);
      });
    }

    it("lists a broken run from its intact events, and refuses to extend it", async () => {
      const events = sampleLog();
      await appendAll(harness.store, "run-1", events);
      await harness.tearLast("run-1");
      const reopened = harness.reopen();
      expect(await reopened.list()).toEqual([
        { runId: "run-1", task: "How hot is Pune?", startedAt: events[0]?.at, events: 5, outcome: null },
      ]);
      expect(
        await logError(reopened.append("run-1", stamp(6, { type: "tool.started", callId: "x", name: "y" }))),
      ).toMatchObject({ runId: "run-1", position: 5 });
    });

    for (const damage of ["corrupt", "torn"] as const) {
      it(`repair drops a ${damage} last entry only, keeping every event before it, and the run goes on`, async () => {
        const events = sampleLog();
        await appendAll(harness.store, "run-1", events);
        await appendAll(harness.store, "run-2", events.slice(0, 3));
        await damageLast(harness, damage, "run-1");
        const reopened = harness.reopen();
        expect(await reopened.repair("run-1")).toBe(1);
        expect(await reopened.read("run-1")).toEqual(events.slice(0, 5));
        expect(await reopened.repair("run-1")).toBe(0);
        expect(await reopened.repair("run-2")).toBe(0);
        expect(await reopened.repair("nobody")).toBe(0);
        await reopened.append("run-1", events[5] as StoredEvent);
        expect(await harness.reopen().read("run-1")).toEqual(events);
        expect(await harness.reopen().read("run-2")).toEqual(events.slice(0, 3));
      });
    }
  });
}

async function damageLast(harness: DurableHarness, damage: "corrupt" | "torn", runId: string): Promise<void> {
  if (damage === "corrupt") await harness.corruptLast(runId);
  else await harness.tearLast(runId);
}
