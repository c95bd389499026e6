import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type AgentResult,
  asks,
  countTokens,
  EventLogError,
  type EventStore,
  final,
  forkRun,
  MemoryEventStore,
  type Message,
  type Model,
  ModelError,
  type ModelReply,
  replayRun,
  resumeAgent,
  runAgent,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { messagesOf, pendingRequests } from "../../src/machine.js";
import type { StoredEvent } from "../../src/store.js";
import { JsonlEventStore } from "../../src/stores/jsonl-store.js";
import { makeWeatherRegistry, WEATHER_TASK as TASK } from "../../src/testing.js";
import { movedTo } from "../run/trace.js";

const CELSIUS: ReadonlyMap<string, number> = new Map([
  ["Pune", 30],
  ["Delhi", 35],
]);

/**
 * The weather tools with the specs of `makeWeatherRegistry` (so logs of either fit both), that
 * write every real execution to `executions` as `name(args)`; `idempotent` as asked.
 */
function weatherTools(options: { idempotent?: boolean } = {}) {
  const executions: string[] = [];
  const registry = new ToolRegistry();
  const [weatherSpec, convertSpec] = makeWeatherRegistry().registry.specs();
  if (weatherSpec === undefined || convertSpec === undefined) throw new Error("the weather registry changed");
  const { name, description, parameters } = weatherSpec;
  registry.register(
    name,
    description,
    parameters,
    ({ city }: { city: string }) => {
      executions.push(`get_weather(${city})`);
      const celsius = CELSIUS.get(city);
      if (celsius === undefined) throw new Error(`unknown city '${city}'`);
      return { city, celsius };
    },
    options,
  );
  registry.register(
    convertSpec.name,
    convertSpec.description,
    convertSpec.parameters,
    ({ celsius }: { celsius: number }) => {
      executions.push(`c_to_f(${celsius})`);
      return (celsius * 9) / 5 + 32;
    },
    options,
  );
  return { registry, executions };
}

/**
 * A model that answers by position, as a real model answers from the list it is shown: reply i
 * for a list holding i assistant messages. `calls` records the step of every call it gets.
 */
function stepModel(script: readonly ModelReply[]) {
  const calls: number[] = [];
  const model: Model = (messages) => {
    const step = messages.filter((message) => message.role === "assistant").length;
    calls.push(step);
    const reply = script[step];
    if (reply === undefined) throw new Error(`no reply scripted for step ${step}`);
    return reply;
  };
  return { model, calls };
}

/** A model that must not be called. */
const noModel: Model = () => {
  throw new Error("the model was called");
};

/** Two cities, three steps of tool calls (several per reply, one of them invalid), then the answer. */
function twoCities(): ModelReply[] {
  return [
    {
      content: "Looking up both cities.",
      toolCalls: [toolCall("c1", "get_weather", { city: "Pune" }), toolCall("c2", "get_weather", { city: "Delhi" })],
    },
    asks(toolCall("c3", "c_to_f", { celsius: 30 }), toolCall("c4", "c_to_f", {})),
    asks(toolCall("c5", "c_to_f", { celsius: 35 })),
    final("Pune is 86 F, Delhi 95 F."),
  ];
}
/** The execution each valid call of `twoCities` makes. */
const EXECUTION_OF: Readonly<Record<string, string>> = {
  c1: "get_weather(Pune)",
  c2: "get_weather(Delhi)",
  c3: "c_to_f(30)",
  c5: "c_to_f(35)",
};

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-resume-"));
  dirs.push(dir);
  return dir;
}

const STORES: readonly { readonly kind: string; readonly open: () => EventStore }[] = [
  { kind: "MemoryEventStore", open: () => new MemoryEventStore() },
  { kind: "JsonlEventStore", open: () => new JsonlEventStore(tempDir()) },
];

/** A store holding `events` as the log of `runId`, as if the process had died after writing them. */
async function storeWith(open: () => EventStore, runId: string, events: readonly StoredEvent[]): Promise<EventStore> {
  const store = open();
  for (const event of movedTo(runId, events)) await store.append(runId, event);
  return store;
}

const types = (events: readonly StoredEvent[]) => events.map((event) => event.type);
// Times differ, and so do the hashes, which bind each event to its run's id.
const strip = (events: readonly StoredEvent[]) => events.map(({ at: _at, hash: _hash, ...event }) => event);
const toolContent = (messages: readonly Message[], callId: string) =>
  messages.find((message) => message.role === "tool" && message.toolCallId === callId)?.content;
const withoutRunId = ({ runId: _runId, ...result }: AgentResult) => result;

/** The uninterrupted run of `script` and its log. */
async function fullRun(open: () => EventStore, script: readonly ModelReply[], tools = weatherTools()) {
  const store = open();
  const { model } = stepModel(script);
  const result = await runAgent(TASK, model, tools.registry, { store, runId: "full" });
  return { result, events: await store.read("full"), executions: tools.executions };
}

for (const { kind, open } of STORES) {
  describe(`resume with ${kind}`, () => {
    it("cut at every position, finishes as the uninterrupted run, asking and running only what is not logged", async () => {
      const full = await fullRun(open, twoCities());
      expect(full.result.status).toBe("done");
      expect(full.executions).toEqual(Object.values(EXECUTION_OF));
      expect(full.events).toHaveLength(16);
      const replies = full.events.filter((event) => event.type === "model.replied").length;

      for (let k = 1; k < full.events.length; k++) {
        const prefix = full.events.slice(0, k);
        const store = await storeWith(open, "cut", prefix);
        const { model, calls } = stepModel(twoCities());
        const tools = weatherTools({ idempotent: true });
        const result = await resumeAgent("cut", model, tools.registry, { store });
        const at = `cut after ${k} events (${prefix.at(-1)?.type})`;

        expect(result.messages, at).toEqual(full.result.messages);
        expect(withoutRunId(result), at).toEqual(withoutRunId(full.result));
        expect(result.runId).toBe("cut");
        // The model is asked only for the replies the log does not hold.
        const logged = prefix.filter((event) => event.type === "model.replied").length;
        expect(calls, at).toEqual(Array.from({ length: replies - logged }, (_, index) => logged + index));
        // No call whose tool.finished is logged runs again; the others run once.
        const finished = new Set(prefix.flatMap((event) => (event.type === "tool.finished" ? [event.callId] : [])));
        const expected = Object.entries(EXECUTION_OF).flatMap(([id, run]) => (finished.has(id) ? [] : [run]));
        expect(tools.executions, at).toEqual(expected);
        // The log kept its prefix as it was, and now replays to the same result.
        const log = await store.read("cut");
        expect(log.slice(0, k), at).toEqual(movedTo("cut", prefix));
        expect(replayRun(log).result, at).toEqual(withoutRunId(full.result));
      }
    });

    it("completes the log of a run that died just before run.finished", async () => {
      const full = await fullRun(open, twoCities());
      const store = await storeWith(open, "cut", full.events.slice(0, -1));
      const result = await resumeAgent("cut", noModel, weatherTools().registry, { store });
      expect(withoutRunId(result)).toEqual(withoutRunId(full.result));
      expect(strip(await store.read("cut"))).toEqual(strip(full.events));
      expect((await store.list()).map((run) => run.outcome?.status)).toEqual(["done"]);
    });

    it("a cut right after tool.started: a non-idempotent tool is not run again, its observation is the lost-result ERROR", async () => {
      const full = await fullRun(open, twoCities());
      const cut = full.events.findIndex((event) => event.type === "tool.started" && event.callId === "c3") + 1;
      const store = await storeWith(open, "cut", full.events.slice(0, cut));
      const { model, calls } = stepModel(twoCities());
      const tools = weatherTools();
      const result = await resumeAgent("cut", model, tools.registry, { store });

      const lost = toolContent(result.messages, "c3");
      expect(lost).toMatch(/^ERROR: the result of c_to_f was lost/);
      expect(lost).toContain("interrupted");
      expect(tools.executions).toEqual(["c_to_f(35)"]);
      expect(calls).toEqual([2, 3]);
      // Everything else is as in the uninterrupted run.
      expect(
        result.messages.map((message) => (message.role === "tool" && message.toolCallId === "c3" ? null : message)),
      ).toEqual(
        full.result.messages.map((message) =>
          message.role === "tool" && message.toolCallId === "c3" ? null : message,
        ),
      );
      // The observation is logged like any other, so a second resume changes nothing.
      const again = await resumeAgent("cut", noModel, weatherTools().registry, { store });
      expect(again).toEqual(result);
    });

    it("a cut right after tool.started: an idempotent tool runs again", async () => {
      const full = await fullRun(open, twoCities());
      const cut = full.events.findIndex((event) => event.type === "tool.started" && event.callId === "c3") + 1;
      const store = await storeWith(open, "cut", full.events.slice(0, cut));
      const tools = weatherTools({ idempotent: true });
      const result = await resumeAgent("cut", stepModel(twoCities()).model, tools.registry, { store });
      expect(toolContent(result.messages, "c3")).toBe("86");
      expect(tools.executions).toEqual(["c_to_f(30)", "c_to_f(35)"]);
      expect(result.messages).toEqual(full.result.messages);
    });

    it("a cut right after tool.started of a call that could not run at all gives that call's own ERROR again", async () => {
      // An unknown tool or invalid arguments never ran anything: nothing was lost, so the
      // observation is the same validation ERROR as in the uninterrupted run.
      const script = [asks(toolCall("u1", "launch_rockets", { count: 3 }), toolCall("u2", "c_to_f", {})), final("ok")];
      const full = await fullRun(open, script);
      for (const callId of ["u1", "u2"]) {
        const cut = full.events.findIndex((event) => event.type === "tool.started" && event.callId === callId) + 1;
        const store = await storeWith(open, "cut", full.events.slice(0, cut));
        const tools = weatherTools();
        const result = await resumeAgent("cut", stepModel(script).model, tools.registry, { store });
        expect(toolContent(result.messages, callId), callId).toBe(toolContent(full.result.messages, callId));
        expect(tools.executions).toEqual([]);
      }
    });

    it("a finished run comes back unchanged and calls nothing", async () => {
      const full = await fullRun(open, twoCities());
      const store = await storeWith(open, "done", full.events);
      const tools = weatherTools();
      const result = await resumeAgent("done", noModel, tools.registry, { store });
      expect(result).toEqual({ ...full.result, runId: "done" });
      expect(tools.executions).toEqual([]);
      expect(await store.read("done")).toEqual(movedTo("done", full.events));
    });

    it("a stopped run (step limit) is not extended either", async () => {
      const store = open();
      const { model } = stepModel(twoCities());
      const stopped = await runAgent(TASK, model, weatherTools().registry, { store, runId: "stopped", maxSteps: 2 });
      expect(stopped.status).toBe("step_limit");
      const before = await store.read("stopped");
      const result = await resumeAgent("stopped", noModel, weatherTools().registry, { store });
      expect(result).toEqual(stopped);
      expect(await store.read("stopped")).toEqual(before);
    });

    it("refuses a registry with other tool specs, and changes nothing", async () => {
      const full = await fullRun(open, twoCities());
      const store = await storeWith(open, "cut", full.events.slice(0, 5));
      const other = weatherTools().registry;
      other.register(
        "get_time",
        "The time in a city.",
        { type: "object", properties: { city: { type: "string" } } },
        () => 0,
      );
      const { model, calls } = stepModel(twoCities());
      await expect(resumeAgent("cut", model, other, { store })).rejects.toThrow(EventLogError);
      await expect(resumeAgent("cut", model, other, { store })).rejects.toThrow(/'cut' was started with other tools/);
      // Same names, another description: still refused.
      const renamed = new ToolRegistry();
      for (const spec of weatherTools().registry.specs()) {
        renamed.register(spec.name, `${spec.description}!`, spec.parameters, () => 0);
      }
      await expect(resumeAgent("cut", model, renamed, { store })).rejects.toThrow(EventLogError);
      expect(calls).toEqual([]);
      expect(await store.read("cut")).toEqual(movedTo("cut", full.events.slice(0, 5)));
    });

    it("refuses an unknown run id", async () => {
      const store = open();
      const error = await resumeAgent("nobody", noModel, weatherTools().registry, { store }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EventLogError);
      expect((error as EventLogError).message).toMatch(/'nobody' has no log/);
      expect((error as EventLogError).runId).toBe("nobody");
      expect(await store.list()).toEqual([]);
    });

    it("a model failure leaves the log resumable, and a later resume finishes it", async () => {
      const full = await fullRun(open, twoCities());
      const store = open();
      const tools = weatherTools();
      const failing = stepModel(twoCities());
      const flaky: Model = (messages, specs, options) => {
        if (failing.calls.length === 2) throw new Error("503 Service Unavailable");
        return failing.model(messages, specs, options);
      };
      const error = await runAgent(TASK, flaky, tools.registry, { store, runId: "flaky" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelError);
      expect((error as ModelError).step).toBe(3);
      const broken = await store.read("flaky");
      expect(types(broken).at(-1)).toBe("tool.finished");
      expect(types(broken)).not.toContain("run.finished");
      expect((await store.list()).map((run) => run.outcome)).toEqual([null]);

      // The same failure on resume changes nothing in the log.
      const again = await resumeAgent("flaky", flaky, tools.registry, { store }).catch((e: unknown) => e);
      expect(again).toBeInstanceOf(ModelError);
      expect(await store.read("flaky")).toEqual(broken);

      const { model, calls } = stepModel(twoCities());
      const result = await resumeAgent("flaky", model, tools.registry, { store });
      expect(result.messages).toEqual(full.result.messages);
      expect(withoutRunId(result)).toEqual(withoutRunId(full.result));
      expect(calls).toEqual([2, 3]);
      expect(tools.executions).toEqual(Object.values(EXECUTION_OF));
      expect((await store.list()).map((run) => run.outcome?.status)).toEqual(["done"]);
    });
  });
}

describe("resume starts from the replayed state", () => {
  it("the live actor begins where the log ends: it processes only the new events, once each", async () => {
    const full = await fullRun(() => new MemoryEventStore(), twoCities());
    const cut = full.events.findIndex((event) => event.type === "model.replied" && event.seq > 5);
    const store = await storeWith(() => new MemoryEventStore(), "cut", full.events.slice(0, cut));
    const processed: string[] = [];
    const result = await resumeAgent("cut", stepModel(twoCities()).model, weatherTools().registry, {
      store,
      inspect: (inspection) => {
        if (inspection.type === "@xstate.event" && inspection.actorRef.sessionId === inspection.rootId) {
          processed.push(inspection.event.type);
        }
      },
    });
    expect(withoutRunId(result)).toEqual(withoutRunId(full.result));
    const fresh = types((await store.read("cut")).slice(cut)).filter(
      (type) => type !== "tool.started" && type !== "run.finished",
    );
    expect(processed.filter((type) => !type.startsWith("xstate."))).toEqual(fresh);
  });

  it("cut at every position of a run with an approved call, goes on as the whole run did, asking each decision once", async () => {
    const sent: string[] = [];
    const mailTools = () => {
      const registry = new ToolRegistry();
      registry.register(
        "send_mail",
        "Sends a mail.",
        { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
        ({ to }: { to: string }) => {
          sent.push(to);
          return "sent";
        },
        { needsApproval: true },
      );
      return registry;
    };
    const script = [asks(toolCall("m1", "send_mail", { to: "ana" })), final("Mailed Ana.")];
    const asked: string[] = [];
    const approve = (call: { id: string }) => {
      asked.push(call.id);
      return { approved: true };
    };
    const store = new MemoryEventStore();
    const whole = await runAgent(TASK, stepModel(script).model, mailTools(), { store, runId: "whole", approve });
    const events = await store.read("whole");
    expect(types(events)).toContain("approval.decided");
    for (let k = 1; k < events.length; k++) {
      sent.length = 0;
      asked.length = 0;
      const prefix = events.slice(0, k);
      const cut = await storeWith(() => new MemoryEventStore(), "cut", prefix);
      const result = await resumeAgent("cut", stepModel(script).model, mailTools(), { store: cut, approve });
      const at = `cut after ${k} events (${prefix.at(-1)?.type})`;
      const decided = prefix.some((event) => event.type === "approval.decided");
      const ran = prefix.some((event) => event.type === "tool.started");
      expect(asked, at).toEqual(decided ? [] : ["m1"]);
      expect(sent, at).toEqual(ran ? [] : ["ana"]);
      if (prefix.at(-1)?.type === "tool.started") {
        // The process died while the mail was being sent: it is not sent again, and the model is told.
        expect(toolContent(result.messages, "m1"), at).toMatch(/^ERROR: the result of send_mail was lost/);
      } else {
        expect(withoutRunId(result), at).toEqual(withoutRunId(whole));
      }
    }
  });

  it("pendingRequests names what a settled snapshot waits on, and nothing for a final one", async () => {
    const full = await fullRun(() => new MemoryEventStore(), twoCities());
    const upTo = (type: StoredEvent["type"], seq: number) =>
      full.events.slice(0, full.events.findIndex((e) => e.type === type && e.seq >= seq) + 1);
    expect(pendingRequests(replayRun(full.events.slice(0, 1)).snapshot)).toMatchObject([
      { type: "callModel", step: 1 },
    ]);
    // Both calls of the first reply run at once.
    expect(pendingRequests(replayRun(upTo("model.replied", 1)).snapshot)).toMatchObject([
      { type: "runTool", call: { id: "c1" } },
      { type: "runTool", call: { id: "c2" } },
    ]);
    // Once c1's result is in, c2 is all that is left.
    expect(pendingRequests(replayRun(upTo("tool.finished", 1)).snapshot)).toMatchObject([
      { type: "runTool", call: { id: "c2" } },
    ]);
    expect(pendingRequests(replayRun(full.events).snapshot)).toEqual([]);
  });
});

describe("resume after a torn JSONL line", () => {
  it("is refused with the run and the position named, keeps the events before it, and finishes after repair", async () => {
    const full = await fullRun(() => new MemoryEventStore(), twoCities());
    const events = movedTo("torn", full.events);
    const dir = tempDir();
    const text = events
      .slice(0, 7)
      .map((event) => `${JSON.stringify(event)}\n`)
      .join("");
    const torn = JSON.stringify(events[7]).slice(0, 25);
    writeFileSync(join(dir, "torn.jsonl"), text + torn);
    const store = new JsonlEventStore(dir);
    const { model, calls } = stepModel(twoCities());
    const tools = weatherTools({ idempotent: true });

    const error = await resumeAgent("torn", model, tools.registry, { store }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventLogError);
    expect((error as EventLogError).message).toMatch(/'torn'.*line 8/);
    expect((error as EventLogError).position).toBe(7);
    expect((error as EventLogError).intact).toEqual(events.slice(0, 7));
    expect(readFileSync(join(dir, "torn.jsonl"), "utf8")).toBe(text + torn);
    expect(calls).toEqual([]);

    expect(await store.repair("torn")).toBe(1);
    const result = await resumeAgent("torn", model, tools.registry, { store });
    expect(result.messages).toEqual(full.result.messages);
    expect(calls).toEqual([2, 3]);
    expect(tools.executions).toEqual(["c_to_f(30)", "c_to_f(35)"]);
  });
});

describe("forkRun", () => {
  /** A run of `twoCities` stopped by its token budget just before its third model call. */
  async function budgetStopped(store: EventStore) {
    const full = await fullRun(() => new MemoryEventStore(), twoCities());
    // The budget check before call 3: the tokens spent by two calls plus the third prompt exceed it by one.
    const third = full.events.findIndex(
      (event) => event.type === "model.replied" && event.reply.toolCalls[0]?.id === "c5",
    );
    const beforeThird = replayRun(full.events.slice(0, third)).context;
    const prompt = countTokens(weatherTools().registry.specs()) + countTokens(messagesOf(beforeThird.transcript));
    const tokenBudget = beforeThird.tokens + prompt - 1;
    const tools = weatherTools();
    const { model } = stepModel(twoCities());
    const stopped = await runAgent(TASK, model, tools.registry, { store, runId: "orig", tokenBudget });
    expect(stopped.status).toBe("token_budget");
    expect(stopped.steps).toBe(2);
    return { full, stopped };
  }

  it("from the whole log with a larger budget finishes where the original stopped; the original file is byte-identical", async () => {
    const dir = tempDir();
    const store = new JsonlEventStore(dir);
    const { full, stopped } = await budgetStopped(store);
    const original = await store.read("orig");
    const bytes = readFileSync(join(dir, "orig.jsonl"));

    const forkId = await forkRun(store, "orig", { tokenBudget: 100_000, runId: "bigger" });
    expect(forkId).toBe("bigger");
    const forked = await store.read("bigger");
    const [started] = forked;
    expect(started?.type === "run.started" && started.forkedFrom).toEqual({ runId: "orig", seq: original.length - 1 });
    expect(started?.type === "run.started" && started.settings.tokenBudget).toBe(100_000);
    expect(strip(forked.slice(1))).toEqual(strip(original.slice(1, -1)));

    const { model, calls } = stepModel(twoCities());
    const tools = weatherTools();
    const result = await resumeAgent("bigger", model, tools.registry, { store });
    expect(result.status).toBe("done");
    expect(result.messages).toEqual(full.result.messages);
    expect(result.messages.slice(0, stopped.messages.length)).toEqual(stopped.messages);
    expect(calls).toEqual([2, 3]);
    expect(tools.executions).toEqual(["c_to_f(35)"]);

    expect(readFileSync(join(dir, "orig.jsonl")).equals(bytes)).toBe(true);
    expect(await resumeAgent("orig", noModel, weatherTools().registry, { store })).toEqual(stopped);
    const runs = await store.list();
    expect(runs.map((run) => [run.runId, run.outcome?.status])).toEqual([
      ["bigger", "done"],
      ["orig", "token_budget"],
    ]);
  });

  it("from a prefix: keeps only that prefix, runs the rest, leaves the original alone", async () => {
    const store = new MemoryEventStore();
    const { full } = await budgetStopped(store);
    const original = await store.read("orig");
    // run.started, the first reply, both calls' tool.started, and the first call's tool.finished:
    // the second call was still running there, so its start is left out and it runs in the fork.
    expect(types(original.slice(0, 5))).toEqual([
      "run.started",
      "model.replied",
      "tool.started",
      "tool.started",
      "tool.finished",
    ]);
    const forkId = await forkRun(store, "orig", { keep: 5, tokenBudget: Number.POSITIVE_INFINITY });
    expect(forkId).toMatch(/^[0-9a-f-]{36}$/);
    const forked = await store.read(forkId);
    expect(types(forked)).toEqual(["run.started", "model.replied", "tool.started", "tool.finished"]);
    const [started] = forked;
    expect(started?.type === "run.started" && started.forkedFrom).toEqual({ runId: "orig", seq: 5 });

    const { model, calls } = stepModel(twoCities());
    const tools = weatherTools();
    const result = await resumeAgent(forkId, model, tools.registry, { store });
    expect(result.messages).toEqual(full.result.messages);
    expect(calls).toEqual([1, 2, 3]);
    expect(tools.executions).toEqual(["get_weather(Delhi)", "c_to_f(30)", "c_to_f(35)"]);
    expect(await store.read("orig")).toEqual(original);
  });
});
