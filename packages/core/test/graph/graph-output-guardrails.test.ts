import { getShortestPaths } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import { initialTransition, transition } from "xstate";
import { agentMachine, final, type ModelReply, ToolRegistry, toolCall } from "../../src/index.js";
import { type AgentEvent, type AgentRequest, type AgentSnapshot, resolveSettings } from "../../src/machine.js";
import { CANCEL } from "./agent-graph.js";

// Every run of the machine under an output schema and guardrails, with the model answering,
// asking for a lookup or refusing, every answer checked valid or invalid, and every guardrail
// passing or tripping in every order its verdicts may come in, cancelled anywhere it waits.

interface ChecksSetup {
  readonly maxSteps: number;
  /** Absent: the turn has no output schema. */
  readonly outputRetries?: number;
  readonly input: readonly string[];
  readonly output: readonly string[];
}

const SCHEMA = { type: "object", properties: { n: { type: "number" } }, required: ["n"] } as const;

function settingsOf({ maxSteps, outputRetries, input, output }: ChecksSetup) {
  const registry = new ToolRegistry();
  registry.register("lookup", "Looks a word up.", { type: "object", properties: { q: { type: "string" } } }, () => "");
  const model = () => final("");
  const settings = resolveSettings("How hot is Pune?", model, registry, { maxSteps, tokenBudget: 1_000_000 });
  const schema = outputRetries === undefined ? {} : { output: { schema: SCHEMA }, outputRetries };
  return { ...settings, ...schema, guardrails: { input, output } };
}

function requestsOf(actions: readonly unknown[]): AgentRequest[] {
  return actions.flatMap((action) => {
    const { type, params } = action as { type: string; params?: { event: AgentRequest } };
    return type === "xstate.emit" && params !== undefined ? [params.event] : [];
  });
}

/** The verdicts still to come in the stage in progress: each may pass or trip, in any order. */
function verdictsAt(snapshot: AgentSnapshot): AgentEvent[] {
  const { guard } = snapshot.context;
  if (guard === null) return [];
  return guard.verdicts.flatMap((verdict, index): AgentEvent[] => {
    if (verdict !== null) return [];
    const name = snapshot.context.guardrails[guard.stage][index] as string;
    const event = { type: "guardrail.checked", stage: guard.stage, index, name } as const;
    return [
      { ...event, tripped: false },
      { ...event, tripped: true, reason: `${name} says no` },
    ];
  });
}

/** The events possible in a snapshot; a reply with calls carries text a parser would choke on, as a provider's may. */
function eventsAt(snapshot: AgentSnapshot): AgentEvent[] {
  if (snapshot.status !== "active") return [];
  const step = snapshot.context.steps + 1;
  if (snapshot.matches("callingModel")) {
    const replies: ModelReply[] = [
      final(`answer ${step}`),
      { content: "let me look {", toolCalls: [toolCall(`s${step}`, "lookup", { q: "a" })] },
      { content: `no ${step}`, toolCalls: [], finishReason: "refusal" },
    ];
    return [...replies.map((reply): AgentEvent => ({ type: "model.replied", reply })), CANCEL];
  }
  if (snapshot.matches("checkingOutput")) {
    return [
      { type: "output.checked", valid: true, value: { n: snapshot.context.steps } },
      { type: "output.checked", valid: false, problem: "n is missing" },
      CANCEL,
    ];
  }
  if (snapshot.matches("guardingInput") || snapshot.matches("guardingOutput")) return [...verdictsAt(snapshot), CANCEL];
  const running = snapshot.context.batch?.indexesIn("running") ?? [];
  const finished = running.map((index): AgentEvent => {
    const callId = snapshot.context.batch?.calls[index]?.id ?? "";
    return { type: "tool.finished", callId, content: '{"celsius":30}' };
  });
  return [...finished, CANCEL];
}

interface Run {
  readonly events: AgentEvent[];
  /** The snapshot after each event, the start first. */
  readonly states: AgentSnapshot[];
  /** The requests each event made (the start's first). */
  readonly requests: AgentRequest[][];
}

/** Every run from `start` to its end (or to where nothing more can happen), as a tree walk: nothing merged. */
function allRuns(start: [AgentSnapshot, readonly unknown[]]): Run[] {
  const runs: Run[] = [];
  const walk = (snapshot: AgentSnapshot, run: Run) => {
    const next = eventsAt(snapshot);
    if (next.length === 0) runs.push(run);
    for (const event of next) {
      const [after, actions] = transition(agentMachine, snapshot, event);
      if (after === snapshot) throw new Error(`${event.type} is not taken in ${JSON.stringify(snapshot.value)}`);
      walk(after, {
        events: [...run.events, event],
        states: [...run.states, after],
        requests: [...run.requests, requestsOf(actions)],
      });
    }
  };
  walk(start[0], { events: [], states: [start[0]], requests: [requestsOf(start[1])] });
  return runs;
}

function runsOf(setup: ChecksSetup): Run[] {
  return allRuns(initialTransition(agentMachine, { settings: settingsOf(setup) }));
}

/** The runs of a conversation's next turn, from each way the first turn ended `done`, under the same setup. */
function nextTurnRuns(setup: ChecksSetup): Run[] {
  const settings = settingsOf(setup);
  const ended = runsOf({ ...setup, maxSteps: 2 }).flatMap((run) => {
    const last = run.states.at(-1) as AgentSnapshot;
    return last.matches("done") && run.events.every((event) => event.type !== "run.cancelled") ? [last] : [];
  });
  const { output, outputRetries, guardrails } = settings;
  const turn = { ...(output === undefined ? {} : { output, outputRetries }), guardrails };
  return ended
    .slice(0, 4)
    .flatMap((last) =>
      allRuns(
        initialTransition(agentMachine, { settings, continues: { context: last.context, message: "and now?", turn } }),
      ),
    );
}

const key = (snapshot: AgentSnapshot) =>
  JSON.stringify([
    snapshot.value,
    snapshot.context.steps,
    snapshot.context.invalidOutputs,
    snapshot.context.inputGuarded,
    snapshot.context.guard?.verdicts.map((verdict) => verdict?.tripped ?? null) ?? null,
    snapshot.context.batch?.calls.map((_, index) => snapshot.context.batch?.stateOf(index)) ?? null,
  ]);

const FULL: ChecksSetup = { maxSteps: 3, outputRetries: 1, input: ["pii", "topic"], output: ["policy", "tone"] };

describe("agentMachine graph under an output check and guardrails", () => {
  it("reaches every new exit: invalid_output, a trip at the input and at the output stage, and done through both checks", () => {
    const input = { settings: settingsOf(FULL) };
    const ends = new Map<string, string[]>();
    for (const path of getShortestPaths(agentMachine, { input, events: eventsAt, serializeState: key })) {
      const { state } = path;
      if (state.status !== "done") continue;
      const events = path.steps.slice(1).map((step) => step.event);
      const tripped = state.output?.guardrail?.stage;
      const end = tripped === undefined ? String(state.value) : `${String(state.value)} at ${tripped}`;
      const known = ends.get(end);
      if (known === undefined || known.length > events.length)
        ends.set(
          end,
          events.map((event) => event.type),
        );
    }
    expect([...ends.keys()].sort()).toEqual([
      "cancelled",
      "done",
      "guardrailTripped at input",
      "guardrailTripped at output",
      "invalidOutput",
      "refused",
      "stepLimit",
    ]);
    const verdicts = (n: number) => Array.from({ length: n }, () => "guardrail.checked");
    expect(ends.get("done")).toEqual([...verdicts(2), "model.replied", "output.checked", ...verdicts(2)]);
    expect(ends.get("guardrailTripped at input")).toEqual(verdicts(1));
    expect(ends.get("invalidOutput")).toEqual([
      ...verdicts(2),
      "model.replied",
      "output.checked",
      "model.replied",
      "output.checked",
    ]);
    for (const [status, end] of [
      ["invalid_output", "invalidOutput"],
      ["guardrail_tripped", "guardrailTripped"],
    ] as const) {
      const states = runsOf(FULL).map((run) => run.states.at(-1) as AgentSnapshot);
      expect(states.filter((state) => state.matches(end)).every((state) => state.output?.status === status)).toBe(true);
    }
  });

  it("without a schema, output guardrails check the text answer, and done is reached through them", () => {
    const runs = runsOf({ maxSteps: 2, input: [], output: ["policy"] });
    const done = runs.filter((run) => (run.states.at(-1) as AgentSnapshot).matches("done"));
    expect(done.length).toBeGreaterThan(0);
    for (const run of done) expect(run.events.at(-1)).toMatchObject({ type: "guardrail.checked", tripped: false });
    for (const run of runs) expect(run.states.some((state) => state.matches("checkingOutput"))).toBe(false);
  });

  it.each([
    ["the first turn", () => runsOf(FULL)],
    ["a conversation's next turn", () => nextTurnRuns(FULL)],
  ])(
    "%s: no model call before every input guardrail passed, and the stage runs once, every check at once",
    (_, runs) => {
      const all = runs();
      expect(all.length).toBeGreaterThan(100);
      for (const run of all) {
        const passed = new Set<number>();
        let stages = 0;
        for (const [index, requests] of run.requests.entries()) {
          const event = run.events[index - 1];
          if (event?.type === "guardrail.checked" && event.stage === "input" && !event.tripped) passed.add(event.index);
          const checks = requests.filter((request) => request.type === "checkGuardrail" && request.stage === "input");
          if (checks.length > 0) {
            stages++;
            // Both checks are asked for by the one transition into the stage: they run at once.
            expect(checks.map((check) => (check.type === "checkGuardrail" ? check.name : ""))).toEqual([
              "pii",
              "topic",
            ]);
          }
          for (const request of requests) {
            if (request.type === "callModel" || request.type === "runTool") expect(passed.size).toBe(2);
          }
          const state = run.states[index] as AgentSnapshot;
          if (state.matches("callingModel")) expect(passed.size).toBe(2);
        }
        expect(stages).toBe(1);
      }
    },
  );

  it("a conversation's next turn never shows the model the message a guardrail blocked in the turn before", () => {
    const settings = settingsOf(FULL);
    const { output, outputRetries, guardrails } = settings;
    const turn = { output, outputRetries, guardrails };
    const tripped = runsOf({ ...FULL, maxSteps: 2 }).flatMap((run) => {
      const last = run.states.at(-1) as AgentSnapshot;
      return last.matches("guardrailTripped") ? [last] : [];
    });
    const stages = new Set<string>();
    for (const last of tripped.filter((_, index) => index % 3 === 0)) {
      stages.add(last.output?.guardrail?.stage ?? "");
      // The blocked message is the last of the turn: the user's at the input stage, the answer at the output stage.
      const at = last.context.transcript.length - 1;
      const continues = { context: last.context, message: "and now?", turn };
      let calls = 0;
      for (const run of allRuns(initialTransition(agentMachine, { settings, continues }))) {
        for (const request of run.requests.flat()) {
          if (request.type !== "callModel") continue;
          calls++;
          expect(request.transcript.toJSON()[at]).toEqual({ role: "user", content: "and now?" });
        }
      }
      expect(calls).toBeGreaterThan(0);
    }
    expect([...stages].sort()).toEqual(["input", "output"]);
  });

  it("the first trip by order of declaration ends the stage, whatever order the verdicts came in", () => {
    let tripped = 0;
    for (const run of runsOf(FULL)) {
      const last = run.states.at(-1) as AgentSnapshot;
      if (!last.matches("guardrailTripped")) continue;
      tripped++;
      const trip = last.output?.guardrail;
      const names = FULL[trip?.stage ?? "input"];
      const verdicts = run.events.filter(
        (event) => event.type === "guardrail.checked" && event.stage === trip?.stage,
      ) as Extract<AgentEvent, { type: "guardrail.checked" }>[];
      const winner = verdicts.find((verdict) => verdict.name === trip?.name);
      expect(winner?.tripped).toBe(true);
      expect(trip?.reason).toBe(`${trip?.name} says no`);
      // Every guardrail declared before the winner passed; none declared after it could win.
      for (const before of names.slice(0, winner?.index)) {
        expect(verdicts.find((verdict) => verdict.name === before)?.tripped).toBe(false);
      }
    }
    expect(tripped).toBeGreaterThan(10);
  });

  it("output guardrails start only on an answer the check found valid, and done only after all of them passed", () => {
    for (const run of runsOf(FULL)) {
      for (const [index, state] of run.states.entries()) {
        const before = run.states[index - 1];
        if (state.matches("guardingOutput") && !before?.matches("guardingOutput")) {
          expect(run.events[index - 1]).toMatchObject({ type: "output.checked", valid: true });
          expect(state.context.outputValue).not.toBeNull();
        }
        if (state.matches("done")) {
          expect(before?.matches("guardingOutput")).toBe(true);
          const verdicts = run.events.filter((event) => event.type === "guardrail.checked" && event.stage === "output");
          expect(verdicts).toHaveLength(2);
          expect(state.output?.output).toEqual({ n: state.context.steps });
        }
      }
    }
  });

  it("an answer is checked only from a reply without calls, whatever text a reply with calls carries", () => {
    for (const run of runsOf({ ...FULL, input: [] })) {
      for (const [index, event] of run.events.entries()) {
        if (event.type !== "model.replied") continue;
        const checks = (run.requests[index + 1] ?? []).filter((request) => request.type === "checkOutput");
        const answer = event.reply.toolCalls.length === 0 && event.reply.finishReason !== "refusal";
        expect(checks).toEqual(answer ? [{ type: "checkOutput", text: event.reply.content }] : []);
      }
    }
  });

  it("cancelling while a check or a guardrail is awaited ends the run cancelled, with no answer", () => {
    const waits = ["checkingOutput", "guardingInput", "guardingOutput"] as const;
    const seen = new Set<string>();
    for (const run of runsOf(FULL)) {
      if (run.events.at(-1)?.type !== "run.cancelled") continue;
      const before = run.states.at(-2) as AgentSnapshot;
      const wait = waits.find((name) => before.matches(name));
      if (wait === undefined) continue;
      seen.add(wait);
      expect(run.states.at(-1)?.output).toMatchObject({ status: "cancelled", answer: null });
    }
    expect([...seen].sort()).toEqual([...waits].sort());
  });
});

describe("outputRetries bounds the model calls invalid answers cost", () => {
  const rows = [0, 1, 2].flatMap((outputRetries) => [1, 2, 3, 4].map((maxSteps) => [outputRetries, maxSteps] as const));

  it.each(rows)(
    "outputRetries %i, maxSteps %i: at most that many calls after an invalid answer, and the bound is reached",
    (outputRetries, maxSteps) => {
      let most = 0;
      for (const run of runsOf({ maxSteps, outputRetries, input: [], output: [] })) {
        let invalid = 0;
        let retried = 0;
        let afterInvalid = false;
        for (const [index, requests] of run.requests.entries()) {
          const event = run.events[index - 1];
          if (event?.type === "output.checked") afterInvalid = !event.valid;
          if (event?.type === "output.checked" && !event.valid) invalid++;
          if (event?.type === "model.replied" || event?.type === "tool.finished") afterInvalid = false;
          if (afterInvalid && requests.some((request) => request.type === "callModel")) retried++;
          expect((run.states[index] as AgentSnapshot).context.steps).toBeLessThanOrEqual(maxSteps);
        }
        expect(retried).toBeLessThanOrEqual(outputRetries);
        expect(invalid).toBeLessThanOrEqual(outputRetries + 1);
        const last = run.states.at(-1) as AgentSnapshot;
        // The turn ends invalid_output exactly when it had one invalid answer more than it may correct.
        expect(last.matches("invalidOutput")).toBe(invalid === outputRetries + 1);
        if (!last.matches("done")) expect(last.output?.output).toBeUndefined();
        most = Math.max(most, retried);
      }
      expect(most).toBe(Math.min(outputRetries, maxSteps - 1));
    },
  );
});
