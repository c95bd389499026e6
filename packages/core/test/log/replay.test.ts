import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createActor, type SnapshotFrom, toPromise } from "xstate";
import {
  type AgentResult,
  agentMachine,
  EventLogError,
  final,
  MemoryEventStore,
  type Model,
  type ModelReply,
  replayRun,
  runAgent,
  scriptedModel,
  type ToolCall,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { driveEffects, Journal, messagesOf, outcomeOf, type RunSettings, resolveSettings } from "../../src/machine.js";
import { chainHash, EVENT_LOG_SCHEMA_VERSION, parseEventLog, runHashSeed, type StoredEvent } from "../../src/store.js";
import { weatherScript as happyScript, makeWeatherRegistry, WEATHER_TASK as TASK } from "../../src/testing.js";

type AgentSnapshot = SnapshotFrom<typeof agentMachine>;
type Json = Record<string, unknown>;

const SYSTEM = "Use the tools.";

/** Everything observable about a snapshot, deep-copied at the moment it is taken (the live transcript grows in place). */
function view(snapshot: AgentSnapshot) {
  const c = snapshot.context;
  return structuredClone({
    value: snapshot.value,
    snapshotStatus: snapshot.status,
    maxSteps: c.maxSteps,
    tokenBudget: c.tokenBudget,
    specs: c.specs,
    specsTokens: c.specsTokens,
    messages: messagesOf(c.transcript),
    transcriptLength: c.transcript.length,
    transcriptChars: c.transcript.chars,
    steps: c.steps,
    tokens: c.tokens,
    batch: c.batch === null ? null : c.batch.toJSON(),
    status: c.status,
    answer: c.answer,
    output: snapshot.status === "done" ? (snapshot.output ?? null) : null,
  });
}
type View = ReturnType<typeof view>;

const CELSIUS: ReadonlyMap<string, number> = new Map([
  ["Pune", 30],
  ["Delhi", 35],
]);

/**
 * The weather tools (same specs and behaviour as `makeWeatherRegistry`, which the property below
 * checks by comparing logs) and a model guard, all counting their calls; once `armed`, any call is
 * a violation and throws: replay must reach neither.
 */
function armedWeather() {
  const state = { armed: false, modelCalls: 0, toolRuns: 0, violations: [] as string[] };
  const enter = (what: string) => {
    if (state.armed) {
      state.violations.push(what);
      throw new Error(`replay reached ${what}`);
    }
  };
  const registry = new ToolRegistry();
  const [weatherSpec, convertSpec] = makeWeatherRegistry().registry.specs();
  if (weatherSpec === undefined || convertSpec === undefined) throw new Error("the weather registry changed");
  registry.register(weatherSpec.name, weatherSpec.description, weatherSpec.parameters, ({ city }: { city: string }) => {
    enter("get_weather");
    state.toolRuns++;
    const celsius = CELSIUS.get(city);
    if (celsius === undefined) throw new Error(`unknown city '${city}'`);
    return { city, celsius };
  });
  registry.register(
    convertSpec.name,
    convertSpec.description,
    convertSpec.parameters,
    ({ celsius }: { celsius: number }) => {
      enter("c_to_f");
      state.toolRuns++;
      return (celsius * 9) / 5 + 32;
    },
  );
  const guard =
    (model: Model): Model =>
    (messages, tools, options) => {
      enter("the model");
      state.modelCalls++;
      return model(messages, tools, options);
    };
  return { registry, state, guard };
}

interface LiveRun {
  readonly events: StoredEvent[];
  /** views[0]: the state after start; views[i]: the state after the i-th domain event the live actor processed. */
  readonly views: View[];
  /** The domain events the live actor processed, in order. */
  readonly processed: Json[];
  readonly output: AgentResult | null;
  readonly error: unknown;
  readonly settings: RunSettings;
}

/**
 * Runs a live agent exactly as `runAgent` does with a store (a Journal that logs `run.started`, the
 * live actor driven by `driveEffects` with the journal, `run.finished` at the end), and records, through
 * `inspect`, the root actor's snapshot after every event it processes.
 *
 * Why this measures "the state the live run had at that point": the driver logs every
 * `model.replied` / `tool.finished` to the journal BEFORE it sends that event to the machine, and
 * `tool.started` is logged but never sent. So the i-th root `@xstate.snapshot` caused by a domain
 * event is the live state right after the i-th domain event of the log; a log prefix of length p
 * that holds d domain events therefore corresponds to views[d]. The test checks this alignment
 * instead of assuming it: the events the actor processed must equal the logged ones, one for one.
 */
async function liveRun(script: readonly ModelReply[], limits: { maxSteps: number; tokenBudget: number }) {
  const { registry, guard, state } = armedWeather();
  const model = guard(scriptedModel(script));
  const store = new MemoryEventStore();
  const journal = new Journal(store, "live", [], { now: () => new Date(0) });
  const settings: RunSettings = resolveSettings(TASK, model, registry, { system: SYSTEM, ...limits });
  await journal.commit({ type: "run.started", schemaVersion: EVENT_LOG_SCHEMA_VERSION, settings });
  const views: View[] = [];
  const processed: Json[] = [];
  const input = { settings };
  const actor = createActor(agentMachine, {
    input,
    inspect: (inspection) => {
      if (inspection.type !== "@xstate.snapshot" || inspection.actorRef.sessionId !== inspection.rootId) return;
      const { event } = inspection;
      if (event.type !== "xstate.init") processed.push(structuredClone(event) as Json);
      views.push(view(inspection.snapshot as AgentSnapshot));
    },
  });
  let failed = (_error: unknown) => {};
  const failure = new Promise<never>((_, reject) => {
    failed = reject;
  });
  const done = toPromise(actor);
  const stop = driveEffects(actor, { model, registry, journal }, failed);
  actor.start();
  let output: AgentResult | null = null;
  let error: unknown = null;
  try {
    output = await Promise.race([done, failure]);
    await journal.commit({ type: "run.finished", outcome: outcomeOf(output) });
  } catch (caught) {
    error = caught;
  } finally {
    stop();
    actor.stop();
  }
  state.armed = true;
  const run: LiveRun = { events: await store.read("live"), views, processed, output, error, settings };
  return { run, state };
}

const isDomain = (event: StoredEvent) => event.type === "model.replied" || event.type === "tool.finished";

/** Checks the whole log and every prefix of a live run against the live actor's snapshots. */
function checkReplayAgainstLive(run: LiveRun): void {
  const domain = run.events.filter(isDomain).map(({ seq: _seq, at: _at, hash: _hash, ...event }) => event);
  expect(run.processed).toEqual(domain);
  expect(run.views).toHaveLength(domain.length + 1);

  for (let length = 1; length <= run.events.length; length++) {
    const prefix = run.events.slice(0, length);
    const replay = replayRun(prefix, { runId: "live" });
    const expected = run.views[prefix.filter(isDomain).length] as View;
    expect(view(replay.snapshot), `prefix of ${length} events`).toEqual(expected);
    expect(replay.result).toEqual(expected.output);
  }

  const whole = replayRun(run.events, { runId: "live" });
  if (run.output !== null) {
    expect(run.events.at(-1)?.type).toBe("run.finished");
    expect(whole.result).toEqual(run.output);
    expect(view(whole.snapshot)).toEqual(run.views.at(-1));
  } else {
    expect(whole.result).toBeNull();
  }
}

describe("replay: a run rebuilt from its log", () => {
  it("calls no model and runs no tool: both throw once the live run is over", async () => {
    const { run, state } = await liveRun(happyScript(), { maxSteps: 8, tokenBudget: 4000 });
    expect([state.modelCalls, state.toolRuns]).toEqual([3, 2]);
    for (let length = 1; length <= run.events.length; length++) replayRun(run.events.slice(0, length));
    const replay = replayRun(run.events);
    expect([state.modelCalls, state.toolRuns]).toEqual([3, 2]);
    expect(state.violations).toEqual([]);
    expect(replay.result).toEqual(run.output);
  });

  it("gives runAgent's live AgentResult (minus runId) and the live context, for the whole log", async () => {
    const { registry, runs } = makeWeatherRegistry();
    const store = new MemoryEventStore();
    const live = await runAgent(TASK, scriptedModel(happyScript()), registry, {
      store,
      runId: "happy",
      system: SYSTEM,
    });
    expect(runs).toHaveLength(2);
    const { runId, ...result } = live;
    expect(runId).toBe("happy");
    const events = await store.read("happy");
    const replay = replayRun(events, { runId: "happy" });
    expect(replay.result).toEqual(result);
    expect(runs).toHaveLength(2);

    // The context: the same run through the recording harness, whose log is runAgent's but for the times.
    const { run } = await liveRun(happyScript(), { maxSteps: 8, tokenBudget: 4000 });
    const strip = (log: readonly StoredEvent[]) => log.map(({ at: _at, hash: _hash, ...event }) => event);
    expect(strip(run.events)).toEqual(strip(events));
    expect(view(replay.snapshot)).toEqual(run.views.at(-1));
    expect(replay.context.steps).toBe(3);
    expect(messagesOf(replay.context.transcript)).toEqual(live.messages);
  });

  it("replays every prefix of the happy path to the live state at that point", async () => {
    const { run } = await liveRun(happyScript(), { maxSteps: 8, tokenBudget: 4000 });
    expect(run.events.map((event) => event.type)).toEqual([
      "run.started",
      "model.replied",
      "tool.started",
      "tool.finished",
      "model.replied",
      "tool.started",
      "tool.finished",
      "model.replied",
      "run.finished",
    ]);
    checkReplayAgainstLive(run);
    // A prefix that ends with tool.started is the state before the tool ran: one call pending.
    const afterStart = replayRun(run.events.slice(0, 3));
    expect(
      afterStart.context.batch?.indexesIn("running").map((index) => afterStart.context.batch?.calls[index]?.id),
    ).toEqual(["c1"]);
    expect(afterStart.snapshot.value).toEqual({ executingTools: "runningTools" });
    expect(afterStart.result).toBeNull();
  });

  it("reads an unlimited budget back as Infinity (JSON writes it as null)", async () => {
    const { run } = await liveRun(happyScript(), { maxSteps: 8, tokenBudget: Number.POSITIVE_INFINITY });
    // The store keeps JSON text, where Infinity is null; reading decodes it back.
    expect(run.events[0]).toMatchObject({ type: "run.started", settings: { tokenBudget: Number.POSITIVE_INFINITY } });
    expect(replayRun(run.events).context.tokenBudget).toBe(Number.POSITIVE_INFINITY);
    checkReplayAgainstLive(run);
  });
});

// ---------------------------------------------------------------- property

type CallShape = Omit<ToolCall, "id">;
const callArb: fc.Arbitrary<CallShape> = fc.oneof(
  fc.constantFrom("Pune", "Delhi").map((city) => ({ name: "get_weather", args: { city } })),
  fc.constant({ name: "get_weather", args: { city: "Atlantis" } }), // the tool throws
  fc.integer({ min: -40, max: 50 }).map((celsius) => ({ name: "c_to_f", args: { celsius } })),
  fc.constant({ name: "c_to_f", args: { celsius: "hot" } }), // wrong type
  fc.constant({ name: "get_weather", args: {} }), // missing argument
  fc.constant({ name: "get_weather", args: { city: "Pune", units: "C" } }), // argument not in the schema
  fc.constant({ name: "launch_rockets", args: { count: 3 } }), // unknown tool
  fc.constant({ name: "c_to_f", args: {}, rawArgs: "{celsius: 30" }), // arguments that are not JSON
);
const replyArb = fc.record({
  content: fc.string({ maxLength: 24, unit: "binary" }),
  calls: fc.array(callArb, { maxLength: 3 }),
  usage: fc.option(fc.record({ inputTokens: fc.nat(500), outputTokens: fc.nat(500) }), { nil: undefined }),
});
type RandomReply = typeof replyArb extends fc.Arbitrary<infer T> ? T : never;
const runArb = fc.record({
  replies: fc.array(replyArb, { minLength: 1, maxLength: 7 }),
  maxSteps: fc.integer({ min: 0, max: 7 }),
  tokenBudget: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 0, max: 2500 })),
});

/** The script of a random run: replies without calls are final answers; a final one closes it so the script never runs out. */
function scriptOf(replies: readonly RandomReply[]): ModelReply[] {
  const script: ModelReply[] = replies.map(({ content, calls, usage }, step) => ({
    content,
    toolCalls: calls.map((call, index) => ({ ...call, id: `c${step}_${index}` })),
    ...(usage === undefined ? {} : { usage }),
  }));
  return [...script, final("that is all")];
}

describe("replay: property over random runs", () => {
  it("the whole log gives the live result, every prefix gives the live state at that point", async () => {
    const statuses = new Set<string>();
    await fc.assert(
      fc.asyncProperty(runArb, async ({ replies, maxSteps, tokenBudget }) => {
        const script = scriptOf(replies);
        const { run, state } = await liveRun(script, { maxSteps, tokenBudget });
        expect(run.error).toBeNull();
        if (run.output !== null) statuses.add(run.output.status);
        const counts = [state.modelCalls, state.toolRuns];
        checkReplayAgainstLive(run);
        expect([state.modelCalls, state.toolRuns]).toEqual(counts);
        expect(state.violations).toEqual([]);

        // runAgent with a store writes the same log (times aside) and replay gives its result.
        const store = new MemoryEventStore();
        const live = await runAgent(TASK, scriptedModel(script), makeWeatherRegistry().registry, {
          store,
          runId: "agent",
          system: SYSTEM,
          maxSteps,
          tokenBudget,
        });
        const logged = await store.read("agent");
        // Times differ, and so do the hashes, which bind each event to its run's id.
        const strip = (log: readonly StoredEvent[]) => log.map(({ at: _at, hash: _hash, ...event }) => event);
        expect(strip(logged)).toEqual(strip(run.events));
        const { runId: _runId, ...result } = live;
        expect(replayRun(logged).result).toEqual(result);
      }),
      { numRuns: 120 },
    );
    // The generator reaches every exit.
    expect([...statuses].sort()).toEqual(["done", "step_limit", "token_budget"]);
  });
});

// ---------------------------------------------------------------- malformed logs

/** The happy path's log as plain JSON values, as a store would hold them. */
async function happyLog(): Promise<Json[]> {
  const store = new MemoryEventStore();
  await runAgent(TASK, scriptedModel(happyScript()), makeWeatherRegistry().registry, { store, runId: "bad" });
  return JSON.parse(JSON.stringify(await store.read("bad"))) as Json[];
}

/**
 * Renumbers `seq` and seals the hash chain again, so that only the change under test is wrong:
 * without it, the hash check would catch every alteration first (which its own tests show).
 */
function renumber(values: Json[]): Json[] {
  let previous = runHashSeed("bad");
  return values.map((value, seq) => {
    const { hash: _hash, ...event }: Json = { ...value, seq };
    const hash = chainHash(previous, JSON.stringify(event));
    previous = hash;
    return { ...event, hash };
  });
}

/** Reads values as a store does, then replays them: the path every log takes. */
function load(values: readonly unknown[]) {
  return replayRun(parseEventLog("bad", values), { runId: "bad" });
}

/** Expects `EventLogError` at `position`, naming the run, with every event before it intact. */
function expectLogError(action: () => unknown, values: readonly unknown[], position: number, words: RegExp): void {
  let caught: unknown;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(EventLogError);
  const error = caught as EventLogError;
  expect(error.message).toMatch(words);
  expect(error.message).toContain("'bad'");
  expect(error.runId).toBe("bad");
  expect(error.position).toBe(position);
  // Nothing is lost: the events before the problem are all kept, readable as they were.
  expect(error.intact).toEqual(parseEventLog("bad", values.slice(0, position)));
}

/** Seals the chain of altered values in place (see `renumber`). */
function sealed(values: Json[]): void {
  values.splice(0, values.length, ...renumber(values));
}

describe("replay: malformed logs get a clear EventLogError and lose nothing", () => {
  it("the unaltered log loads (so each failure below is the alteration's)", async () => {
    expect(load(await happyLog()).result?.status).toBe("done");
  });

  it("a first event that is not run.started", async () => {
    const values = renumber((await happyLog()).slice(1));
    expectLogError(() => load(values), values, 0, /event 0 must be 'run.started'/);
    // Also when the events skip parsing.
    const events = parseEventLog("bad", await happyLog()).slice(1);
    expect(() => replayRun(events, { runId: "bad" })).toThrow(EventLogError);
  });

  it("a second run.started", async () => {
    const log = await happyLog();
    const values = renumber([...log.slice(0, 3), log[0] as Json, ...log.slice(3)]);
    expectLogError(() => load(values), values, 3, /event 3 repeats 'run.started'/);
  });

  it("a gap in seq", async () => {
    const log = await happyLog();
    const values = [...log.slice(0, 3), ...log.slice(4)];
    expectLogError(() => load(values), values, 3, /event 3 has seq 4, expected 3/);
  });

  it("a repeated seq", async () => {
    const log = await happyLog();
    const values = [...log.slice(0, 4), log[3] as Json, ...log.slice(4)];
    expectLogError(() => load(values), values, 4, /event 4 has seq 3, expected 4/);
  });

  it("an unknown event type", async () => {
    const log = await happyLog();
    const values = [...log];
    values[2] = { ...log[2], type: "tool.cancelled" };
    sealed(values);
    expectLogError(() => load(values), values, 2, /unknown type "tool.cancelled".*run.started, model.replied/);
  });

  it("a model.replied with an invalid reply", async () => {
    const log = await happyLog();
    const values = [...log];
    values[4] = { ...log[4], reply: { content: "", toolCalls: "get_weather" } };
    sealed(values);
    expectLogError(() => load(values), values, 4, /event 4 holds an invalid reply: reply.toolCalls must be an array/);
  });

  it("a tool.finished for the wrong call", async () => {
    const log = await happyLog();
    const values = [...log];
    values[3] = { ...log[3], callId: "c2" };
    sealed(values);
    expectLogError(() => load(values), values, 3, /event 3 \(tool.finished\) has no tool.started for call/);
  });

  it("a tool.started for a call that is not pending", async () => {
    const log = await happyLog();
    const values = [...log];
    values[5] = { ...log[5], callId: "c1" };
    sealed(values);
    expectLogError(
      () => load(values),
      values,
      5,
      /event 5 \(tool.started\) is for call 'c1', which is not waiting to run/,
    );
  });

  it("a model.replied while tool results are awaited", async () => {
    const log = await happyLog();
    const values = renumber([...log.slice(0, 2), log[4] as Json, ...log.slice(2)]);
    expectLogError(
      () => load(values),
      values,
      2,
      /event 2 \(model.replied\) does not fit the state \{"executingTools":"runningTools"\}/,
    );
  });

  it("an event after run.finished", async () => {
    const log = await happyLog();
    const values = renumber([...log, log[1] as Json]);
    // The stray event is the problem, not the valid run.finished before it, which stays intact.
    expectLogError(() => load(values), values, log.length, /event 9 \(model.replied\) comes after run.finished/);
  });

  it("a run.finished before the run reached its end", async () => {
    const log = await happyLog();
    const values = renumber([...log.slice(0, 4), log.at(-1) as Json, ...log.slice(4)]);
    expectLogError(() => load(values), values, 4, /event 4 \(run.finished\) comes before the run reached its end/);
  });

  it("a second run.finished", async () => {
    const log = await happyLog();
    const values = renumber([...log, log.at(-1) as Json]);
    expectLogError(() => load(values), values, log.length, /run.finished/);
  });

  it("a run.finished whose outcome is not the replayed one", async () => {
    const log = await happyLog();
    const values = [...log];
    const last = log.at(-1) as { outcome: Json };
    values[log.length - 1] = { ...last, outcome: { ...last.outcome, status: "step_limit", answer: null } };
    sealed(values);
    expectLogError(() => load(values), values, log.length - 1, /records \{.*\}, but the events lead to \{/);
  });

  it("a schemaVersion newer than this code reads", async () => {
    const values = [...(await happyLog())];
    values[0] = { ...values[0], schemaVersion: EVENT_LOG_SCHEMA_VERSION + 1 };
    expectLogError(
      () => load(values),
      values,
      0,
      new RegExp(
        `schema version ${EVENT_LOG_SCHEMA_VERSION + 1}; this agentloop reads up to ${EVENT_LOG_SCHEMA_VERSION}`,
      ),
    );
  });

  it("a model reply with calls but no content field, or a call with no id, is refused where it stands", async () => {
    const log = await happyLog();
    const values = [...log];
    values[1] = { ...log[1], reply: { toolCalls: [toolCall("c1", "get_weather", { city: "Pune" })] } };
    sealed(values);
    expectLogError(() => load(values), values, 1, /reply.content must be a string/);
    values[1] = { ...log[1], reply: { content: "", toolCalls: [{ name: "get_weather", args: {} }] } };
    sealed(values);
    expectLogError(() => load(values), values, 1, /reply.toolCalls\[0\].id must be a string/);
  });
});
