import { describe, expect, it } from "vitest";
import {
  continueAgent,
  InMemoryMemoryStore,
  MemoryEventStore,
  type MemoryScope,
  type MemoryStore,
  memoryTools,
  replayRun,
  resumeAgent,
  runAgent,
  ToolRegistry,
} from "../../src/index.js";
import { asks, final, scriptedModel, toolCall } from "../../src/testing.js";

const ALICE: MemoryScope = { resource: "alice" };

/** A store and an embedder that throw on every call: what replay and resume must never reach. */
function throwing(): MemoryStore {
  const refuse = () => {
    throw new Error("the memory store was called");
  };
  return { put: refuse, get: refuse, search: refuse, delete: refuse };
}
const throwingEmbed = () => {
  throw new Error("the embedder was called");
};

async function fixture() {
  const memory = new InMemoryMemoryStore({ embed: (text) => [text.length, text.split("e").length, 1] });
  await memory.put(ALICE, "city", "Alice lives in Pune");
  await memory.put(ALICE, "unit", "Alice wants Fahrenheit");
  const registry = (store: MemoryStore) => {
    const made = new ToolRegistry().add(...memoryTools(store, ALICE));
    made.register(
      "send",
      "Sends a message.",
      { type: "object", properties: { to: { type: "string" } } },
      () => "sent",
      {
        needsApproval: true,
      },
    );
    return made;
  };
  const script = () =>
    scriptedModel([
      asks(toolCall("w1", "remember", { key: "friend", value: "Bob" }), toolCall("s1", "send", { to: "bob" })),
      final("Sent, in Fahrenheit."),
      final("Your friend is Bob."),
    ]);
  return { memory, registry, script };
}

describe("replay and resume never call the memory store or the embedder", () => {
  it("a run paused for approval and resumed with a store and an embedder that throw gives the same transcript, bit for bit, as the run that never paused", async () => {
    const { memory, registry, script } = await fixture();
    const straight = await runAgent("Tell Bob the weather in my unit.", script(), registry(memory), {
      memory: { store: memory, scope: ALICE },
      approve: () => ({ approved: true }),
    });
    const { memory: second, registry: registryOf, script: again } = await fixture();
    const store = new MemoryEventStore();
    const model = again();
    const paused = await runAgent("Tell Bob the weather in my unit.", model, registryOf(second), {
      store,
      runId: "p",
      memory: { store: second, scope: ALICE },
    });
    expect(paused.status).toBe("awaiting_approval");
    const broken = throwing();
    // The tools' store embeds with an embedder that throws: a write or a search made again would fail the run.
    const embedding = new InMemoryMemoryStore({ embed: throwingEmbed });
    const resumed = await resumeAgent("p", model, registryOf(embedding), {
      store,
      memory: { store: broken },
      decisions: { s1: { approved: true } },
    });
    expect(JSON.stringify(resumed.messages)).toBe(JSON.stringify(straight.messages));
    const replayed = replayRun(await store.read("p"));
    expect(JSON.stringify(replayed.result?.messages)).toBe(JSON.stringify(straight.messages));
    const finished = await resumeAgent("p", model, registryOf(embedding), { store, memory: { store: broken } });
    expect(JSON.stringify(finished.messages)).toBe(JSON.stringify(straight.messages));
    await expect(embedding.put(ALICE, "k", "v")).rejects.toThrow("the embedder was called");
  });

  it("a run cut off while it recalled asks the store once more on resume, and only then; without the store given again it is refused", async () => {
    const store = new MemoryEventStore();
    const failing: MemoryStore = { ...throwing(), search: () => Promise.reject(new Error("store unreachable")) };
    const model = scriptedModel([final("Green.")]);
    await expect(
      runAgent("colour?", model, new ToolRegistry(), { store, runId: "cut", memory: { store: failing, scope: ALICE } }),
    ).rejects.toThrow("store unreachable");
    expect((await store.read("cut")).map((event) => event.type)).toEqual(["run.started"]);
    await expect(resumeAgent("cut", model, new ToolRegistry(), { store })).rejects.toThrow(/give memory/);
    const memory = new InMemoryMemoryStore();
    await memory.put(ALICE, "colour", "green");
    const done = await resumeAgent("cut", model, new ToolRegistry(), { store, memory: { store: memory } });
    expect(done.status).toBe("done");
    expect((await store.read("cut")).map((event) => event.type)).toEqual([
      "run.started",
      "memory.recalled",
      "model.replied",
      "run.finished",
    ]);
  });
});

describe("memory options, refused before anything is logged", () => {
  it("refuses a bad recall, scope or store", async () => {
    const store = new MemoryEventStore();
    const memory = new InMemoryMemoryStore();
    const run = (options: object) =>
      runAgent("hi", scriptedModel([final("ok")]), new ToolRegistry(), { store, memory: options as never });
    await expect(run({ store: memory, scope: ALICE, recall: -1 })).rejects.toThrow(RangeError);
    await expect(run({ store: memory, scope: ALICE, recall: 1.5 })).rejects.toThrow(RangeError);
    await expect(run({ store: memory, scope: { resource: "" } })).rejects.toThrow(TypeError);
    await expect(run({ store: memory, scope: { resource: "a", thread: "b" } })).rejects.toThrow(TypeError);
    await expect(run({ store: {}, scope: ALICE })).rejects.toThrow(/MemoryStore/);
    expect(await store.list()).toEqual([]);
  });

  it("a conversation keeps the scope it started with: another scope, or memory for a run started without, is refused", async () => {
    const store = new MemoryEventStore();
    const memory = new InMemoryMemoryStore();
    const model = scriptedModel([final("a"), final("b")]);
    await runAgent("hi", model, new ToolRegistry(), { store, runId: "m", memory: { store: memory, scope: ALICE } });
    await expect(
      continueAgent("m", "again", model, new ToolRegistry(), {
        store,
        memory: { store: memory, scope: { resource: "bob" } },
      }),
    ).rejects.toThrow(/scope/);
    await runAgent("hi", model, new ToolRegistry(), { store, runId: "plain" });
    await expect(
      continueAgent("plain", "again", model, new ToolRegistry(), { store, memory: { store: memory, scope: ALICE } }),
    ).rejects.toThrow(/without memory/);
  });

  it("a store whose search gives more hits than asked for, or no hits at all, fails the run in one line", async () => {
    const many: MemoryStore = {
      ...throwing(),
      search: async () => [
        { key: "a", value: "1", score: 1 },
        { key: "b", value: "2", score: 1 },
      ],
    };
    const broken: MemoryStore = { ...throwing(), search: async () => "nothing" as never };
    const run = (memory: MemoryStore) =>
      runAgent("hi", scriptedModel([final("ok")]), new ToolRegistry(), {
        memory: { store: memory, scope: ALICE, recall: 1 },
      });
    await expect(run(many)).rejects.toThrow(RangeError);
    await expect(run(broken)).rejects.toThrow(/list of hits/);
  });

  it("a run cancelled while it recalls ends cancelled, and the model is never called", async () => {
    const controller = new AbortController();
    const hanging: MemoryStore = {
      ...throwing(),
      search: () => {
        controller.abort(new Error("the user left"));
        return new Promise(() => {});
      },
    };
    const model = scriptedModel([final("never")]);
    const result = await runAgent("hi", model, new ToolRegistry(), {
      signal: controller.signal,
      memory: { store: hanging, scope: ALICE },
    });
    expect(result.status).toBe("cancelled");
    expect(model.seen).toHaveLength(0);
  });
});
