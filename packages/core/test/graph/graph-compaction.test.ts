import { describe, expect, it } from "vitest";
import { initialTransition, transition } from "xstate";
import { compactionRequest, isSummaryOverBudget } from "../../src/decide/index.js";
import { agentMachine, final, type ModelReply, ToolRegistry, toolCall } from "../../src/index.js";
import { type AgentEvent, type AgentSnapshot, resolveSettings, shownMessages } from "../../src/machine.js";
import { orphanProblem } from "../run/compaction-fixture.js";
import { CANCEL } from "./agent-graph.js";

/** A graph setup under compaction: the limits, the strategy, and how many messages stay. */
interface CompactionSetup {
  readonly maxSteps: number;
  readonly tokenBudget: number;
  readonly strategy?: "summarize" | "trim";
  readonly keepRecent: number;
  /** Without it the run never compacts. */
  readonly triggerTokens?: number;
}

function inputOf(setup: CompactionSetup) {
  const registry = new ToolRegistry();
  registry.register("lookup", "Looks a word up.", { type: "object", properties: { q: { type: "string" } } }, () => "");
  const model = () => final("");
  const { maxSteps, tokenBudget, strategy = "summarize", keepRecent, triggerTokens } = setup;
  const compaction = triggerTokens === undefined ? {} : { compaction: { triggerTokens, strategy, keepRecent } };
  return { settings: resolveSettings("How hot is Pune?", model, registry, { maxSteps, tokenBudget, ...compaction }) };
}

/** The model answers, asks for one lookup, or for two at once; a compaction is answered as asked (a summary, or a trim). */
function eventsAt(snapshot: AgentSnapshot): AgentEvent[] {
  if (snapshot.status !== "active") return [];
  const step = snapshot.context.steps + 1;
  if (snapshot.matches("callingModel")) {
    const replies: ModelReply[] = [
      final(`answer ${step}`),
      { content: "", toolCalls: [toolCall(`s${step}`, "lookup", { q: "a" })] },
      {
        content: "",
        toolCalls: [toolCall(`c${step}`, "lookup", { q: "b" }), toolCall(`d${step}`, "lookup", { q: "c" })],
      },
    ];
    return [...replies.map((reply): AgentEvent => ({ type: "model.replied", reply })), CANCEL];
  }
  if (snapshot.matches({ compacting: "awaitingView" })) {
    const request = compactionRequest(snapshot.context);
    if (request.type !== "compactContext") throw new Error("not a compaction request");
    const { keptFrom, strategy } = request;
    const summary = strategy === "summarize" ? { summary: `summary before ${step}` } : {};
    return [{ type: "context.compacted", step, keptFrom, ...summary }, CANCEL];
  }
  const batch = snapshot.context.batch;
  const running = batch?.indexesIn("running") ?? [];
  const finished = running.map((index): AgentEvent => {
    const callId = batch?.calls[index]?.id ?? "";
    return { type: "tool.finished", callId, content: `{"for":"${callId}","text":"${"x".repeat(80)}"}` };
  });
  return [...finished, CANCEL];
}

/** Every path of the machine under `setup`, as the events along it and the snapshots after each. */
function allPaths(setup: CompactionSetup, machine = agentMachine): { events: AgentEvent[]; states: AgentSnapshot[] }[] {
  const [start] = initialTransition(machine, inputOf(setup));
  const paths: { events: AgentEvent[]; states: AgentSnapshot[] }[] = [];
  const walk = (snapshot: AgentSnapshot, events: AgentEvent[], states: AgentSnapshot[]) => {
    const next = eventsAt(snapshot);
    if (next.length === 0) paths.push({ events, states });
    for (const event of next) {
      const [after] = transition(machine, snapshot, event);
      if (after === snapshot) throw new Error(`${event.type} is not taken in ${JSON.stringify(snapshot.value)}`);
      walk(after, [...events, event], [...states, after]);
    }
  };
  walk(start, [], [start]);
  return paths;
}

const stateOf = (snapshot: AgentSnapshot) => JSON.stringify(snapshot.value);

const SETUPS: CompactionSetup[] = [
  { maxSteps: 4, tokenBudget: 1_000_000, triggerTokens: 150, keepRecent: 1 },
  { maxSteps: 4, tokenBudget: 1_000_000, triggerTokens: 150, keepRecent: 2, strategy: "trim" },
  { maxSteps: 4, tokenBudget: 1_000_000, triggerTokens: 100, keepRecent: 0 },
  // A budget the summarizer's call runs into.
  { maxSteps: 4, tokenBudget: 420, triggerTokens: 150, keepRecent: 1 },
];

describe("agentMachine graph under compaction", () => {
  for (const setup of SETUPS) {
    const name = `${setup.strategy ?? "summarize"}, keepRecent ${setup.keepRecent}, budget ${setup.tokenBudget}`;
    it(`${name}: compacting is reached, and every way out of it reaches callingModel, tokenBudget or cancelled`, () => {
      const paths = allPaths(setup);
      let compactions = 0;
      for (const { events, states } of paths) {
        for (const [index, state] of states.entries()) {
          if (!state.matches("compacting")) continue;
          compactions++;
          const after = states[index + 1];
          if (after === undefined) continue;
          // The compaction, back through budgetCheck, reaches the call or the budget's exit; or the run is cancelled.
          expect(['"callingModel"', '"tokenBudget"', '"cancelled"']).toContain(stateOf(after));
          const event = events[index] as AgentEvent;
          expect(event.type === "run.cancelled" || !after.matches("cancelled")).toBe(true);
        }
      }
      expect(compactions).toBeGreaterThan(0);
    });

    it(`${name}: compaction cannot loop, and no view the model is shown orphans a tool message or loses the task`, () => {
      for (const { events, states } of allPaths(setup)) {
        let sinceReply = 0;
        for (const [index, event] of events.entries()) {
          if (event.type === "model.replied") sinceReply = 0;
          if (event.type === "context.compacted") sinceReply++;
          expect(sinceReply).toBeLessThanOrEqual(1);
          const after = states[index + 1] as AgentSnapshot;
          if (!after.matches("callingModel")) continue;
          const shown = shownMessages(after.context);
          expect(orphanProblem(shown)).toBeNull();
          expect(shown.slice(0, 2).map((m) => m.role)).toEqual(["system", "user"]);
        }
      }
    });
  }

  it("with a budget the summarizer's call would pass, the run ends tokenBudget from compacting, before asking", () => {
    let over = 0;
    const watched = agentMachine.provide({
      guards: {
        isSummaryOverBudget: ({ context }) => {
          const answer = isSummaryOverBudget(context);
          if (answer) over++;
          return answer;
        },
      },
    });
    for (const { states } of allPaths(SETUPS[3] as CompactionSetup, watched)) {
      for (const state of states) if (state.matches("tokenBudget")) expect(state.context.status).toBe("token_budget");
    }
    expect(over).toBeGreaterThan(0);
    // Paths that reach the summarizer's check with too little budget end there: no request is made.
    for (const { states } of allPaths({ ...(SETUPS[3] as CompactionSetup), tokenBudget: 200 }, watched)) {
      expect(states.some((state) => state.matches({ compacting: "awaitingView" }))).toBe(false);
    }
  });

  it("without the option the machine never enters compacting", () => {
    const { triggerTokens: _, ...off } = SETUPS[2] as CompactionSetup;
    for (const { states } of allPaths(off)) for (const state of states) expect(state.matches("compacting")).toBe(false);
  });

  it("cancelling while the summary is written ends cancelled, every call closed", () => {
    const cancelled = allPaths(SETUPS[0] as CompactionSetup).filter(({ events, states }) => {
      const before = states.at(-2);
      return events.at(-1)?.type === "run.cancelled" && before?.matches({ compacting: "awaitingView" });
    });
    expect(cancelled.length).toBeGreaterThan(0);
    for (const { states } of cancelled) {
      const last = states.at(-1) as AgentSnapshot;
      expect(last.context.status).toBe("cancelled");
      expect(orphanProblem(last.output?.messages ?? [])).toBeNull();
    }
  });
});
