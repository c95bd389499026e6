import {
  continueAgent,
  EventLogError,
  type EventStore,
  replayRun,
  retain,
  runAgent,
  scriptedModel,
} from "@agentloop/core";
import { anchorOf, type StoredEvent, stampEvent } from "@agentloop/core/store";
import { weatherScript as happyScript, makeWeatherRegistry, WEATHER_TASK as TASK } from "@agentloop/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoreHarness } from "./store-contract.js";

/** A store under the prune contract: `reopen` gives another store object over the same storage, for a store that locks across objects. */
export interface PruneHarness extends StoreHarness {
  reopen?(): EventStore & { close?(): void };
}

const FUTURE = new Date(Date.now() + 3_600_000);
const IMAGE = { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" } as const;

/**
 * The contract of `EventStore.prune`, which `retain` uses: a finished run's log is replaced by its
 * anchor at once, the conversation goes on after it, and a prune that would lose events is refused.
 */
export function describePruneContract(name: string, make: () => Promise<PruneHarness>): void {
  describe(`${name} replaces a finished run's log by its anchor (prune)`, () => {
    let harness: PruneHarness;
    beforeEach(async () => {
      harness = await make();
    });
    afterEach(() => harness.close?.());

    it("reads the anchor alone, which replays to the run's result, and lists the run as finished", async () => {
      const { store } = harness;
      const result = await runAgent(TASK, scriptedModel(happyScript()), makeWeatherRegistry().registry, {
        store,
        runId: "r",
      });
      expect(await retain(store, { olderThan: FUTURE })).toEqual({ pruned: ["r"] });
      const events = await store.read("r");
      expect(events.map((event) => [event.seq, event.type])).toEqual([[0, "run.anchored"]]);
      const { runId: _runId, ...expected } = result;
      expect(replayRun(events, { runId: "r" }).result).toEqual(expected);
      const [summary] = await store.list();
      expect(summary).toMatchObject({ runId: "r", task: TASK, events: 1, outcome: { status: "done" } });
    });

    it("appends a continued conversation after the anchor, from seq 1, and reads it back whole", async () => {
      const { store } = harness;
      const { registry } = makeWeatherRegistry();
      await runAgent(TASK, scriptedModel(happyScript()), registry, { store, runId: "r" });
      await retain(store, { olderThan: FUTURE });
      const next = await continueAgent("r", "And tomorrow?", scriptedModel(happyScript()), registry, { store });
      expect(next.status).toBe("done");
      const events = await store.read("r");
      expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index));
      expect(events[1]?.type).toBe("user.messaged");
      expect(replayRun(events, { runId: "r" }).result?.messages).toEqual(next.messages);
    });

    it("keeps the bytes of the parts the anchor holds", async () => {
      const { store } = harness;
      const task = [{ type: "text", text: TASK }, IMAGE] as const;
      await runAgent(task, scriptedModel(happyScript()), makeWeatherRegistry().registry, { store, runId: "r" });
      await retain(store, { olderThan: FUTURE });
      const [anchor] = await store.read("r");
      expect(anchor?.type === "run.anchored" && anchor.state.messages[1]?.content).toEqual(task);
    });

    it("refuses, changing nothing, a prune of another number of events than the log holds, or of an event that is no anchor", async () => {
      const { store } = harness;
      await runAgent(TASK, scriptedModel(happyScript()), makeWeatherRegistry().registry, { store, runId: "r" });
      const events = await store.read("r");
      const anchor = anchorOf("r", events);
      if (typeof anchor === "string") throw new Error(anchor);
      const stamped = stampEvent(anchor, 0, new Date().toISOString(), anchor.tip);
      await expect(store.prune?.("r", stamped, events.length - 1)).rejects.toThrow(EventLogError);
      await expect(store.prune?.("r", events[0] as StoredEvent, events.length)).rejects.toThrow(EventLogError);
      expect(await store.read("r")).toEqual(events);
      await store.prune?.("r", stamped, events.length);
      expect(await store.read("r")).toEqual([stamped]);
    });

    it("refuses a prune while another store object holds the run (a store that locks across objects)", async () => {
      const { store } = harness;
      const other: EventStore & { close?(): void } = harness.reopen?.() ?? store;
      await runAgent(TASK, scriptedModel(happyScript()), makeWeatherRegistry().registry, { store, runId: "r" });
      const events = await store.read("r");
      const anchor = anchorOf("r", events);
      if (typeof anchor === "string") throw new Error(anchor);
      const stamped = stampEvent(anchor, 0, new Date().toISOString(), anchor.tip);
      const lock = await other.acquire?.("r");
      try {
        if (lock !== undefined && other !== store) {
          await expect(store.prune?.("r", stamped, events.length)).rejects.toThrow(EventLogError);
          expect(await retain(store, { olderThan: FUTURE })).toEqual({ pruned: [] });
          expect(await store.read("r")).toEqual(events);
        }
      } finally {
        await lock?.release();
        if (other !== store) other.close?.();
      }
      expect(await retain(store, { olderThan: FUTURE })).toEqual({ pruned: ["r"] });
    });
  });
}
