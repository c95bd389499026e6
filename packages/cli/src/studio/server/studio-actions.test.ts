import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryEventStore, type RunLock, ToolRegistry } from "@agentloop/core";
import { afterAll, describe, expect, it } from "vitest";
import { type ActionSetup, StudioActions } from "./studio-actions.js";

const dir = mkdtempSync(join(tmpdir(), "studio-actions-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A store whose runs' locks are released only when `open` is called: a drive that ends after its log does. */
function slowReleaseStore() {
  const inner = new MemoryEventStore();
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const store: ActionSetup["store"] = {
    append: (runId, event) => inner.append(runId, event),
    read: (runId) => inner.read(runId),
    list: () => inner.list(),
    acquire: async (runId): Promise<RunLock> => ({
      runId,
      release: async () => {
        await gate;
      },
    }),
    repair: async () => 0,
  };
  return { store, open: () => open() };
}

/** The studio's actions over a slow-release store, with a model that follows `replies`. */
function actionsOver(name: string, replies: readonly string[]) {
  const script = join(dir, name);
  writeFileSync(script, JSON.stringify(replies.map((content) => ({ content, toolCalls: [] }))));
  const { store, open } = slowReleaseStore();
  const quiet = { write: () => true };
  const actions = new StudioActions({
    store,
    sources: { registry: new ToolRegistry(), flags: [], close: async () => {} },
    model: { script },
    io: { stdout: quiet, stderr: quiet, env: {} },
  });
  return { actions, store, open };
}

/** The run's log once its first turn has finished. */
const finishedLog = (store: ActionSetup["store"], runId: string) =>
  until(async () => {
    const logged = await store.read(runId);
    return logged.some((event) => event.type === "run.finished") ? logged : undefined;
  });

async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("StudioActions", () => {
  it("takes the next message of a run whose log is finished while its drive still closes, after it closes", async () => {
    const { actions, store, open } = actionsOver("talk.json", ["Pune is warm today.", "Delhi is warmer still."]);
    const runId = await actions.start("How warm is Pune?");
    // The page sees the run finished as soon as its last event is logged; the drive still holds the run.
    const events = await finishedLog(store, runId);
    let taken = false;
    const chat = actions.chat(runId, "And Delhi?", events).then(() => {
      taken = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(taken).toBe(false);
    open();
    await chat;
    const second = await until(async () => {
      const logged = await store.read(runId);
      const finished = logged.filter((event) => event.type === "run.finished");
      return finished.length === 2 ? logged : undefined;
    });
    expect(JSON.stringify(second)).toContain("Delhi is warmer still.");
  });

  it("still refuses a second message while the first one's turn goes on", async () => {
    const { actions, store, open } = actionsOver("one.json", ["Pune is warm today."]);
    const runId = await actions.start("How warm is Pune?");
    const events = await finishedLog(store, runId);
    const first = actions.chat(runId, "And Delhi?", events);
    const second = actions.chat(runId, "And Mumbai?", events);
    open();
    await first;
    await expect(second).rejects.toThrow(/already going on from this studio/);
  });
});
