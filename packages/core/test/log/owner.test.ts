import { describe, expect, it } from "vitest";
import { EventLogError, forkRun, MemoryEventStore, runAgent, ToolRegistry } from "../../src/index.js";
import { parseEventLog } from "../../src/store.js";
import { final, scriptedModel } from "../../src/testing.js";

describe("a run started for a principal logs it as its owner", () => {
  it("logs owner in run.started, inside the hash chain: a log whose owner is changed is refused", async () => {
    const store = new MemoryEventStore();
    const owner = { tenant: "acme", user: "ana" };
    await runAgent("Hi.", scriptedModel([final("Hello.")]), new ToolRegistry(), { store, runId: "r", owner });
    const events = await store.read("r");
    expect(events[0]).toMatchObject({ type: "run.started", owner });
    const changed = events.map((event) => JSON.parse(JSON.stringify(event)) as Record<string, unknown>);
    (changed[0] as { owner: unknown }).owner = { tenant: "globex" };
    expect(() => parseEventLog("r", changed)).toThrow(EventLogError);
    expect(() => parseEventLog("r", changed)).toThrow(/does not match its hash/);
  });

  it("summarizes the owner for store.list; a run without one is summarized and logged as before, with no owner key", async () => {
    const store = new MemoryEventStore();
    const model = scriptedModel([final("One."), final("Two.")]);
    await runAgent("Hi.", model, new ToolRegistry(), { store, runId: "owned", owner: { tenant: "acme" } });
    await runAgent("Hi.", model, new ToolRegistry(), { store, runId: "plain" });
    const listed = await store.list();
    expect(listed.find((run) => run.runId === "owned")?.owner).toEqual({ tenant: "acme" });
    const plain = listed.find((run) => run.runId === "plain");
    expect(plain !== undefined && "owner" in plain).toBe(false);
    expect("owner" in ((await store.read("plain"))[0] as object)).toBe(false);
  });

  it("refuses an owner that is not { tenant, user? } with a non-empty tenant, before anything is logged", async () => {
    const store = new MemoryEventStore();
    for (const owner of [{ tenant: "" }, { tenant: 1 }, { tenant: "a", user: 2 }, "acme"]) {
      const run = runAgent("Hi.", scriptedModel([final("x")]), new ToolRegistry(), {
        store,
        runId: "bad",
        owner: owner as never,
      });
      await expect(run).rejects.toThrow(/owner must be \{ tenant, user\? \}/);
    }
    expect(await store.read("bad")).toEqual([]);
  });

  it("a fork is its original owner's run", async () => {
    const store = new MemoryEventStore();
    const owner = { tenant: "acme" };
    await runAgent("Hi.", scriptedModel([final("Hello.")]), new ToolRegistry(), { store, runId: "o", owner });
    await forkRun(store, "o", { runId: "f" });
    expect((await store.read("f"))[0]).toMatchObject({ type: "run.started", owner, forkedFrom: { runId: "o" } });
  });
});
