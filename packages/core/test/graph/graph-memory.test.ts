import { describe, expect, it } from "vitest";
import { initialTransition, transition } from "xstate";
import { agentMachine, final, type MemoryHit, type ModelReply, ToolRegistry, toolCall } from "../../src/index.js";
import { type AgentEvent, type AgentRequest, type AgentSnapshot, resolveSettings } from "../../src/machine.js";
import { CANCEL } from "./agent-graph.js";

// Every run of the machine with memory: each turn recalls once before its first model call (after
// its input guardrails, when it has any), whatever the store gives (nothing, one hit, two, or text
// long enough to overspend the budget), and the model answers, asks for a lookup or refuses; the
// caller cancels anywhere the run waits. A conversation's next turn recalls again.

const SCOPE = { resource: "alice" } as const;
const LONG = "x".repeat(600);

interface MemorySetup {
  readonly maxSteps: number;
  readonly tokenBudget: number;
  readonly input?: readonly string[];
}

function settingsOf({ maxSteps, tokenBudget, input = [] }: MemorySetup) {
  const registry = new ToolRegistry();
  registry.register("lookup", "Looks a word up.", { type: "object", properties: { q: { type: "string" } } }, () => "");
  const settings = resolveSettings("What do I like?", () => final(""), registry, { maxSteps, tokenBudget });
  return { ...settings, memory: { scope: SCOPE, recall: 2 }, guardrails: { input, output: [] } };
}

function requestsOf(actions: readonly unknown[]): AgentRequest[] {
  return actions.flatMap((action) => {
    const { type, params } = action as { type: string; params?: { event: AgentRequest } };
    return type === "xstate.emit" && params !== undefined ? [params.event] : [];
  });
}

const HITS: readonly (readonly MemoryHit[])[] = [
  [],
  [{ key: "colour", value: "green", score: 1.5 }],
  [
    { key: "colour", value: "green", score: 1.5 },
    { key: "drink", value: "green tea", score: 0.5 },
  ],
  [{ key: "essay", value: LONG, score: 1 }],
];

function eventsAt(snapshot: AgentSnapshot): AgentEvent[] {
  if (snapshot.status !== "active") return [];
  const step = snapshot.context.steps + 1;
  if (snapshot.matches("recalling")) {
    const request = requestsAtRecall(snapshot);
    const recalled = HITS.map((hits): AgentEvent => ({ ...request, type: "memory.recalled", hits }));
    return [...recalled, CANCEL];
  }
  if (snapshot.matches("guardingInput")) {
    const { guard } = snapshot.context;
    const open = guard?.verdicts.flatMap((verdict, index) => (verdict === null ? [index] : [])) ?? [];
    return [
      ...open.flatMap((index): AgentEvent[] => {
        const base = { type: "guardrail.checked", stage: "input", index, name: `g${index}` } as const;
        return [
          { ...base, tripped: false },
          { ...base, tripped: true, reason: "no" },
        ];
      }),
      CANCEL,
    ];
  }
  if (snapshot.matches("callingModel")) {
    const replies: ModelReply[] = [
      final(`answer ${step}`),
      { content: "", toolCalls: [toolCall(`s${step}`, "lookup", { q: "a" })] },
      { content: `no ${step}`, toolCalls: [], finishReason: "refusal" },
    ];
    return [...replies.map((reply): AgentEvent => ({ type: "model.replied", reply })), CANCEL];
  }
  const running = snapshot.context.batch?.indexesIn("running") ?? [];
  return [
    ...running.map((index): AgentEvent => {
      const callId = snapshot.context.batch?.calls[index]?.id ?? "";
      return { type: "tool.finished", callId, content: '{"found":1}' };
    }),
    CANCEL,
  ];
}

/** The recall a snapshot in `recalling` waits for, as the request its machine made says. */
function requestsAtRecall(snapshot: AgentSnapshot): { scope: typeof SCOPE; query: string } {
  const last = snapshot.context.transcript.items[snapshot.context.transcript.length - 1];
  return { scope: SCOPE, query: String(last?.content) };
}

interface Run {
  readonly events: AgentEvent[];
  readonly states: AgentSnapshot[];
  readonly requests: AgentRequest[][];
}

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

const runsOf = (setup: MemorySetup) => allRuns(initialTransition(agentMachine, { settings: settingsOf(setup) }));

/** Each request of a run, in order, flat. */
const requestTypes = (run: Run) => run.requests.flat().map((request) => request.type);

describe("the machine with memory, every run", () => {
  const runs = runsOf({ maxSteps: 2, tokenBudget: 1_000_000 });

  it("asks for one recall before anything else, with the turn's message as the query, and never again in the turn", () => {
    expect(runs.length).toBeGreaterThan(20);
    for (const run of runs) {
      const types = requestTypes(run);
      expect(types[0]).toBe("recallMemory");
      expect(types.filter((type) => type === "recallMemory")).toHaveLength(1);
      expect(run.requests[0]?.[0]).toEqual({
        type: "recallMemory",
        scope: SCOPE,
        query: "What do I like?",
        limit: 2,
        message: 1,
      });
    }
  });

  it("shows the hits as one user message right after the turn's message, and nothing when there are none; the system message is never touched", () => {
    for (const run of runs) {
      const recall = run.events[0];
      if (recall?.type !== "memory.recalled") continue;
      const after = run.states[1] as AgentSnapshot;
      const messages = after.context.transcript.items.slice(0, after.context.transcript.length);
      expect(messages[0]).toEqual({ role: "system", content: settingsOf({ maxSteps: 2, tokenBudget: 1 }).system });
      if (recall.hits.length === 0) {
        expect(messages).toHaveLength(2);
        continue;
      }
      expect(messages).toHaveLength(3);
      expect(messages[2]?.role).toBe("user");
      for (const hit of recall.hits) expect(String(messages[2]?.content)).toContain(JSON.stringify(hit.value));
    }
  });

  it("reaches done, stepLimit, refused and cancelled; cancelled from recalling too", () => {
    const ends = new Set(runs.map((run) => JSON.stringify((run.states.at(-1) as AgentSnapshot).value)));
    for (const end of ["done", "stepLimit", "refused", "cancelled"]) expect(ends).toContain(JSON.stringify(end));
    const cancelledRecalling = runs.filter((run) => run.events[0]?.type === "run.cancelled");
    expect(cancelledRecalling).toHaveLength(1);
    expect(requestTypes(cancelledRecalling[0] as Run)).toEqual(["recallMemory"]);
  });
});

describe("the budget counts the recalled memories before the call", () => {
  it("a recall that brings the prompt over the budget ends the turn in tokenBudget with no model call; one that fits calls the model", () => {
    // The task, the system message and the tool fit in 200 tokens; 600 characters of memory do not.
    const runs = runsOf({ maxSteps: 1, tokenBudget: 200 });
    for (const run of runs) {
      const recall = run.events[0];
      if (recall?.type !== "memory.recalled") continue;
      const long = recall.hits.some((hit) => hit.value === LONG);
      expect(requestTypes(run).includes("callModel"), JSON.stringify(recall.hits)).toBe(!long);
      if (long) expect((run.states.at(-1) as AgentSnapshot).value).toBe("tokenBudget");
    }
  });
});

describe("recall after the input guardrails", () => {
  const runs = runsOf({ maxSteps: 1, tokenBudget: 1_000_000, input: ["g0", "g1"] });

  it("recalls only once every input guardrail passed; a trip ends the turn with nothing recalled", () => {
    for (const run of runs) {
      const types = requestTypes(run);
      const tripped = run.events.some((event) => event.type === "guardrail.checked" && event.tripped);
      const recallAt = types.indexOf("recallMemory");
      if (tripped) expect(recallAt).toBe(-1);
      if (recallAt === -1) continue;
      expect(types.slice(0, recallAt)).toEqual(["checkGuardrail", "checkGuardrail"]);
      const verdicts = run.events.filter((event) => event.type === "guardrail.checked");
      expect(verdicts).toHaveLength(2);
    }
    expect(runs.some((run) => (run.states.at(-1) as AgentSnapshot).matches("guardrailTripped"))).toBe(true);
  });
});

describe("a conversation's next turn", () => {
  it("recalls again, for the new message, after the first turn's memory message", () => {
    const settings = settingsOf({ maxSteps: 2, tokenBudget: 1_000_000 });
    const first = runsOf({ maxSteps: 2, tokenBudget: 1_000_000 }).find((run) => {
      const last = run.states.at(-1) as AgentSnapshot;
      return last.matches("done") && run.events[0]?.type === "memory.recalled" && run.events[0].hits.length === 1;
    });
    const last = first?.states.at(-1) as AgentSnapshot;
    const next = allRuns(
      initialTransition(agentMachine, { settings, continues: { context: last.context, message: "And my drink?" } }),
    );
    for (const run of next) {
      expect(run.requests[0]?.[0]).toMatchObject({ type: "recallMemory", query: "And my drink?", message: 4 });
      expect(requestTypes(run).filter((type) => type === "recallMemory")).toHaveLength(1);
    }
  });

  it("a recall that answers another query is not taken", () => {
    const [snapshot] = initialTransition(agentMachine, { settings: settingsOf({ maxSteps: 1, tokenBudget: 1000 }) });
    expect(snapshot.matches("recalling")).toBe(true);
    const stray = { type: "memory.recalled", scope: SCOPE, query: "something else", hits: [] } as const;
    expect(transition(agentMachine, snapshot, stray)[0]).toBe(snapshot);
    const other = { type: "memory.recalled", scope: { resource: "bob" }, query: "What do I like?", hits: [] } as const;
    expect(transition(agentMachine, snapshot, other)[0]).toBe(snapshot);
    const tooMany = { ...stray, query: "What do I like?", hits: [...(HITS[2] ?? []), ...(HITS[1] ?? [])] };
    expect(transition(agentMachine, snapshot, tooMany)[0]).toBe(snapshot);
  });
});
