import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hangGuard } from "../../../../hang-guard.js";
import {
  type AgentResult,
  agentTool,
  asks,
  type EventStore,
  final,
  MemoryEventStore,
  type Message,
  type ModelReply,
  replayRun,
  resumeAgent,
  runAgent,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import type { StoredEvent } from "../../src/store.js";
import { JsonlEventStore } from "../../src/stores/index.js";

/**
 * A tree (a parent whose one reply calls two children, each searching twice before it answers)
 * killed after every possible number of logged events, then resumed from its logs: the result is
 * the one of a run never killed, no logged model reply is asked again and no logged tool runs again.
 */

interface Counters {
  /** Model calls as `<who>:<step>` (step = replies already in the list shown). */
  readonly asked: string[];
  /** Searches run, by query. */
  readonly searched: string[];
}

function tree(counters: Counters): { parent: (m: readonly Message[]) => ModelReply; registry: ToolRegistry } {
  const stepOf = (messages: readonly Message[]) => messages.filter((m) => m.role === "assistant").length;
  const inner = new ToolRegistry();
  inner.register(
    "search",
    "Search.",
    { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    ({ q }: { q: string }) => {
      counters.searched.push(q);
      return `hits for ${q}`;
    },
    { idempotent: true },
  );
  const child = async (messages: readonly Message[]): Promise<ModelReply> => {
    const task = (messages[1] as { content: string }).content;
    const step = stepOf(messages);
    counters.asked.push(`${task}:${step}`);
    await Promise.resolve();
    return step < 2 ? asks(toolCall(`s${step}`, "search", { q: `${task}-${step}` })) : final(`${task} found`);
  };
  const research = agentTool({ name: "research", description: "Researches.", model: child, registry: inner });
  const parent = (messages: readonly Message[]): ModelReply => {
    const step = stepOf(messages);
    counters.asked.push(`parent:${step}`);
    if (step > 0) return final("Both found.");
    return asks(toolCall("r1", "research", { task: "a" }), toolCall("r2", "research", { task: "b" }));
  };
  return { parent, registry: new ToolRegistry([research]) };
}

/** A store whose process dies after `allowed` appends: every append after that fails. */
function dying(store: EventStore, allowed: number): EventStore & { appended: number } {
  const wrapper = {
    appended: 0,
    append: async (runId: string, event: StoredEvent) => {
      if (wrapper.appended >= allowed) throw new Error("killed");
      wrapper.appended += 1;
      await store.append(runId, event);
    },
    read: (runId: string) => store.read(runId),
    list: () => store.list(),
    ...(store.acquire === undefined
      ? {}
      : { acquire: (runId: string) => (store.acquire as NonNullable<EventStore["acquire"]>)(runId) }),
  };
  return wrapper;
}

/** Logged model replies per run, as `<who>:<step>`, and logged search results by query. */
async function loggedWork(store: EventStore): Promise<{ replies: Set<string>; searches: Set<string> }> {
  const replies = new Set<string>();
  const searches = new Set<string>();
  for (const { runId } of await store.list()) {
    const events = await store.read(runId);
    const started = events[0];
    const who = started?.type === "run.started" && started.parent !== undefined ? started.settings.task : "parent";
    let step = 0;
    for (const event of events) {
      if (event.type === "model.replied") replies.add(`${who}:${step++}`);
      if (event.type === "tool.finished" && event.childRunId === undefined)
        searches.add(`${who}-${event.callId.slice(1)}`);
    }
  }
  return { replies, searches };
}

const comparable = (result: AgentResult) => ({ ...result, runId: undefined });

function describeKills(name: string, makeStore: () => Promise<EventStore>) {
  it(
    `${name}: killed after any number of logged events, the resumed tree ends as one never killed and does nothing logged again`,
    async () => {
      const clean = { asked: [], searched: [] };
      const whole = dying(await makeStore(), Number.POSITIVE_INFINITY);
      const expected = await runAgent("Find a and b.", tree(clean).parent, tree(clean).registry, {
        store: whole,
        runId: "p",
      });
      expect(expected.status).toBe("done");
      for (let allowed = 1; allowed < whole.appended; allowed++) {
        const store = await makeStore();
        const first: Counters = { asked: [], searched: [] };
        const killedRun = tree(first);
        await expect(
          runAgent("Find a and b.", killedRun.parent, killedRun.registry, { store: dying(store, allowed), runId: "p" }),
        ).rejects.toThrow("killed");
        const logged = await loggedWork(store);
        const again: Counters = { asked: [], searched: [] };
        const resumed = tree(again);
        const result = await resumeAgent("p", resumed.parent, resumed.registry, { store });
        expect(comparable(result), `killed after ${allowed} events`).toEqual(comparable(expected));
        expect(
          again.asked.filter((call) => logged.replies.has(call)),
          `asked again after ${allowed}`,
        ).toEqual([]);
        expect(
          again.searched.filter((q) => logged.searches.has(q)),
          `ran again after ${allowed}`,
        ).toEqual([]);
        for (const runId of ["p", "p.r1", "p.r2"]) {
          expect(replayRun(await store.read(runId)).result?.status).toBe("done");
        }
      }
      // A run and a resume for every prefix of the log, each written to disk: room on a busy machine.
    },
    hangGuard(60_000),
  );
}

const directories: string[] = [];
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

describe("logs and resume across the tree", () => {
  describeKills("MemoryEventStore", async () => new MemoryEventStore());
  describeKills("JsonlEventStore", async () => {
    const directory = await mkdtemp(join(tmpdir(), "agent-tree-"));
    directories.push(directory);
    return new JsonlEventStore(directory);
  });

  it("replays a parent from its log with the child's logged result, running nothing", async () => {
    const counters: Counters = { asked: [], searched: [] };
    const store = new MemoryEventStore();
    const { parent, registry } = tree(counters);
    const result = await runAgent("Find a and b.", parent, registry, { store, runId: "p" });
    const before = [...counters.asked];
    const replay = replayRun(await store.read("p"));
    expect(replay.result).toEqual({ ...result, runId: undefined });
    expect(counters.asked).toEqual(before);
    const again = await resumeAgent("p", parent, registry, { store });
    expect(again).toEqual(result);
    expect(counters.asked).toEqual(before);
  });

  it("holds the one-writer lock for each child run: a child's run held elsewhere fails the parent, resumable later", async () => {
    const counters: Counters = { asked: [], searched: [] };
    const store = new MemoryEventStore();
    const { parent, registry } = tree(counters);
    const lock = await store.acquire("p.r2");
    await expect(runAgent("Find a and b.", parent, registry, { store, runId: "p" })).rejects.toThrow(
      "run 'p.r2' is being written elsewhere",
    );
    expect(await store.read("p.r2")).toEqual([]);
    await lock.release();
    const result = await resumeAgent("p", parent, registry, { store });
    expect(result.status).toBe("done");
  });
});
