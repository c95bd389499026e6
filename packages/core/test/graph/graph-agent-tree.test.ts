import { getAdjacencyMap } from "@xstate/graph";
import { describe, expect, it } from "vitest";
import { type ActorLogic, initialTransition } from "xstate";
import { z } from "zod";
import { AGENT_STATUSES, type AgentResult, type AgentStatus } from "../../src/data/index.js";
import {
  agentMachine,
  agentTool,
  asks,
  askUserTool,
  type Decision,
  final,
  MemoryEventStore,
  type Model,
  type ModelReply,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import {
  type AgentEvent,
  type AgentMachineInput,
  type AgentSnapshot,
  messagesOf,
  resolveSettings,
  toolFinished,
} from "../../src/machine.js";
import { observationOf } from "../../src/run/index.js";
import { searchTree } from "../agent-tools/agent-tree-fixture.js";
import { keyOf } from "./agent-graph.js";
import { step } from "./graph-runs.js";

// A tree of runs is this one machine once per run, joined by the driver: a child's end reaches its
// parent's machine as one `tool.finished` event, and a child's pause never reaches it at all (the
// driver holds the call and the parent's run pauses). So the parent's side is walked on the
// machine (every end of a child as the event the driver makes of it, then every way on from it);
// what only the driver does (which child result becomes which observation, the pause, routing
// decisions by chained id) is shown by small enumerations of real child runs through
// runAgent/resumeAgent. That a single machine runs a call that needs approval only on a decision
// for that very occurrence is proven on its graph in graph-occurrences.test.ts; here it is shown
// across the tree, where the ids repeat in every run and only the chain tells them apart.

const never = () => {
  throw new Error("graph traversal must not call the model");
};
const graphLogic = agentMachine as unknown as ActorLogic<AgentSnapshot, AgentEvent, AgentMachineInput>;
const CANCEL: AgentEvent = { type: "run.cancelled" };
const ENDS = AGENT_STATUSES.filter((status): status is Exclude<AgentStatus, "awaiting_approval"> => {
  return status !== "awaiting_approval";
});

function parentInput(tokenBudget: number): AgentMachineInput {
  const research = agentTool({ name: "research", description: "R.", model: never, registry: new ToolRegistry() });
  const settings = resolveSettings("Research Lima.", never, new ToolRegistry([research]), { maxSteps: 3, tokenBudget });
  return { settings };
}

/** A child's end as its parent's driver logs it: the observation, the child run, its tokens. */
function childEnd(status: AgentStatus, callId: string, tokens: number): AgentEvent {
  const result: AgentResult = {
    status,
    answer: status === "done" ? "Lima." : "partial",
    steps: 2,
    tokens,
    messages: [],
  };
  const failure = status === "done" ? undefined : "child";
  return { ...toolFinished(callId, observationOf("research", result), failure), childRunId: `p.${callId}`, tokens };
}

/** The parent's events: it answers, refuses or calls `research` again; each child ends with `status`; it may be cancelled. */
function parentEvents(status: AgentStatus, tokens: number): (snapshot: AgentSnapshot) => AgentEvent[] {
  return (snapshot) => {
    if (snapshot.status !== "active") return [];
    const n = snapshot.context.steps + 1;
    if (snapshot.matches("callingModel")) {
      const replies: ModelReply[] = [
        final(`answer ${n}`),
        { content: "no", toolCalls: [], finishReason: "refusal" },
        asks(toolCall(`r${n}`, "research", { task: "t" })),
      ];
      return [...replies.map((reply): AgentEvent => ({ type: "model.replied", reply })), CANCEL];
    }
    const running = snapshot.context.batch?.calls.filter((_, i) => snapshot.context.batch?.stateOf(i) === "running");
    return [...(running ?? []).map((call) => childEnd(status, call.id, tokens)), CANCEL];
  };
}

/** The parent after its first reply called `research` and the child ended with `status`. */
function afterChild(status: AgentStatus, tokenBudget: number, tokens: number) {
  const start = initialTransition(agentMachine, parentInput(tokenBudget))[0];
  const called = step(start, { type: "model.replied", reply: asks(toolCall("r1", "research", { task: "t" })) }).after;
  return { called, ...step(called, childEnd(status, "r1", tokens)) };
}

function finalsFrom(from: AgentSnapshot, tokenBudget: number, status: AgentStatus, tokens: number): string[] {
  const adjacency = getAdjacencyMap(graphLogic, {
    input: parentInput(tokenBudget),
    fromState: from,
    events: parentEvents(status, tokens),
    serializeState: (s) => keyOf(s, true),
    limit: 10_000,
  });
  const finals = Object.values(adjacency).flatMap(({ state }) =>
    state.status === "done" ? [String(state.value)] : [],
  );
  return [...new Set(finals)].sort();
}

describe("a child's exits as its parent's observations, on the parent's machine", () => {
  for (const status of ENDS) {
    it(`${status}: the parent's list gets ${status === "done" ? "the answer" : "an ERROR: naming it"}, its tokens count, and every exit stays reachable`, () => {
      const { called, after, requests } = afterChild(status, 100_000, 50);
      const last = messagesOf(after.context.transcript).at(-1);
      if (status === "done")
        expect(last).toEqual({ role: "tool", toolCallId: "r1", name: "research", content: "Lima." });
      else {
        expect(last).toMatchObject({ role: "tool", toolCallId: "r1", isError: true });
        expect((last as { content: string }).content).toMatch(`ERROR: research ended with status ${status} `);
      }
      expect(after.context.tokens).toBe(called.context.tokens + 50);
      // The parent's model is asked again, with the observation: the child's end is not the parent's.
      expect(requests.map(({ request }) => request.type)).toContain("callModel");
      expect(finalsFrom(after, 100_000, status, 50)).toEqual(["cancelled", "done", "refused", "stepLimit"]);
    });
  }

  it("a child that spent what the parent had left ends the parent at token_budget, whatever the child's end", () => {
    for (const status of ENDS) {
      const { called } = afterChild(status, 2000, 0);
      const { after } = step(called, childEnd(status, "r1", 2000 - called.context.tokens));
      expect(after.value).toBe("tokenBudget");
    }
  });

  it("a child's pause is no event of the parent's machine: the parent's call stays running until the child ends", () => {
    const { called } = afterChild("done", 100_000, 0);
    expect(called.matches({ executingTools: "runningTools" })).toBe(true);
    expect(parentEvents("done", 0)(called).map((event) => event.type)).toEqual(["tool.finished", "run.cancelled"]);
  });
});

const search = (id: string) => asks(toolCall(id, "search", { q: "lima" }));
const city = z.object({ city: z.string() });
const trips = { name: "no-lima", check: (text: string) => ({ tripped: text.includes("Lima"), reason: "names Lima" }) };

/** For each status, a child (its replies and options) that ends with it, as a real run. */
const CHILDREN: Record<AgentStatus, { replies: ModelReply[]; options?: Record<string, unknown> }> = {
  done: { replies: [search("s1"), final("Lima.")] },
  step_limit: { replies: [search("s1"), search("s2")], options: { maxSteps: 1 } },
  token_budget: { replies: Array.from({ length: 40 }, (_, i) => search(`s${i}`)), options: { tokenBudget: 600 } },
  refused: { replies: [{ content: "I will not.", toolCalls: [], finishReason: "refusal" }] },
  repeated_call: {
    replies: [search("s1"), search("s2"), search("s3")],
    options: { onRepeatedCall: "stop", repeatLimit: 2 },
  },
  cancelled: { replies: [] },
  awaiting_approval: { replies: [asks(toolCall("e1", "send_email", { to: "ana" })), final("Not sent.")] },
  invalid_output: { replies: [final("Lima?")], options: { output: city, outputRetries: 0 } },
  guardrail_tripped: { replies: [final("Lima.")], options: { guardrails: { output: [trips] } } },
  awaiting_input: { replies: [asks(toolCall("q1", "ask_user", { question: "Which city?" })), final("Lima.")] },
  cost_budget: {
    replies: [search("s1"), final("Lima.")],
    options: { pricing: { default: { input: 1000, output: 1000 } }, costBudget: 0.001 },
  },
};

describe("a child's exits as its parent's observations, through real runs", () => {
  for (const status of AGENT_STATUSES) {
    it(`${status}: the child ends so, its parent's model is told as the design says, and the parent goes on to answer`, async () => {
      const child = CHILDREN[status];
      const options = status === "cancelled" ? { timeoutMs: 1 } : {};
      const tree = searchTree(child.replies, { options: child.options ?? {} });
      const registry =
        status === "cancelled" ? hangingTree() : status === "awaiting_input" ? askingTree(tree.child) : tree.registry;
      const parent = scriptedModel([asks(toolCall("r1", "research", { task: "t" })), final("Answered.")]);
      const store = new MemoryEventStore();
      let result = await runAgent("Research.", parent, registry, { store, runId: "p", ...options });
      if (status === "awaiting_approval") {
        expect(result).toMatchObject({ status, pendingApprovals: [{ id: "r1/e1", name: "send_email" }] });
        expect(parent.seen).toHaveLength(1);
        const decisions: Record<string, Decision> = { "r1/e1": { approved: false, reason: "no" } };
        result = await resumeAgent("p", parent, registry, { store, decisions });
      }
      if (status === "awaiting_input") {
        expect(result).toMatchObject({ status, pendingQuestions: [{ id: "r1/q1", question: "Which city?" }] });
        expect(parent.seen).toHaveLength(1);
        result = await resumeAgent("p", parent, registry, { store, answers: { "r1/q1": "Lima" } });
      }
      const childResult = replayRun(await store.read("p.r1")).result as AgentResult;
      const paused = status === "awaiting_approval" || status === "awaiting_input";
      expect(childResult.status).toBe(paused ? "done" : status);
      expect(result.status).toBe("done");
      expect(result.answer).toBe("Answered.");
      expect(result.messages[3]).toMatchObject({ toolCallId: "r1", content: observationOf("research", childResult) });
      expect(tree.sent).toEqual([]);
    });
  }
});

/** A `research` agent that can ask the user, run by `model`. */
function askingTree(model: Model): ToolRegistry {
  const registry = new ToolRegistry([askUserTool()]);
  return new ToolRegistry([agentTool({ name: "research", description: "R.", model, registry })]);
}

/** A `research` agent whose model never answers and whose calls time out after 1 ms. */
function hangingTree(): ToolRegistry {
  const hanging = (_messages: unknown, _tools: unknown, options: { signal: AbortSignal }) =>
    new Promise<never>((_, reject) => options.signal.addEventListener("abort", () => reject(options.signal.reason)));
  return new ToolRegistry([
    agentTool({ name: "research", description: "R.", model: hanging, registry: new ToolRegistry(), timeoutMs: 1 }),
  ]);
}

// The tree of (b): the parent, its children `research` (r1) and `notes` (r2), and its grandchild
// `mailer` (r1/g1) each call `send_email` with the same id e1 in one reply, beside the calls of
// their children, so that four calls wait at once, told apart only by their chained ids. The same
// tree again with call ids that hold `/` and `%`, which joined as they are would give three of the
// four calls the one id `a/x/e`: chained ids escape them (`%2F`, `%25`).
interface TreeIds {
  readonly own: string;
  readonly r1: string;
  readonly r1Email: string;
  readonly g1: string;
  readonly g1Email: string;
  readonly r2: string;
  readonly r2Email: string;
}
const PLAIN: TreeIds = { own: "e1", r1: "r1", r1Email: "e1", g1: "g1", g1Email: "e1", r2: "r2", r2Email: "e1" };
const SLASHED: TreeIds = { own: "a/x/e", r1: "a/x", r1Email: "e", g1: "%", g1Email: "e", r2: "a", r2Email: "x/e" };
const TREES = [
  { ids: PLAIN, waiting: { parent: "e1", research: "r1/e1", mailer: "r1/g1/e1", notes: "r2/e1" } },
  { ids: SLASHED, waiting: { parent: "a/x/e", research: "a%2Fx/e", mailer: "a%2Fx/%25/e", notes: "a/x%2Fe" } },
] as const;

function mailTree(ids: TreeIds) {
  const sent: string[] = [];
  const mailing = (extra: ConstructorParameters<typeof ToolRegistry>[0] = []) => {
    const registry = new ToolRegistry(extra);
    const to = { type: "object", properties: { to: { type: "string" } }, required: ["to"] } as const;
    const send = ({ to: who }: { to: string }) => sent.push(who);
    registry.register("send_email", "Send an email.", to, send, { needsApproval: true });
    return registry;
  };
  const email = (id: string, who: string) => toolCall(id, "send_email", { to: who });
  const grand = scriptedModel([asks(email(ids.g1Email, "mailer")), final("Mailer done.")]);
  const mailer = agentTool({ name: "mailer", description: "M.", model: grand, registry: mailing() });
  const middle = scriptedModel([
    asks(email(ids.r1Email, "research"), toolCall(ids.g1, "mailer", { task: "t" })),
    final("R done."),
  ]);
  const research = agentTool({ name: "research", description: "R.", model: middle, registry: mailing([mailer]) });
  const noter = scriptedModel([asks(email(ids.r2Email, "notes")), final("Notes done.")]);
  const notes = agentTool({ name: "notes", description: "N.", model: noter, registry: mailing() });
  const children = [toolCall(ids.r1, "research", { task: "t" }), toolCall(ids.r2, "notes", { task: "t" })];
  const parent = scriptedModel([asks(email(ids.own, "parent"), ...children), final("All done.")]);
  return { sent, parent, registry: mailing([research, notes]) };
}

type Choice = "approve" | "deny" | "none";
const CHOICES: readonly Choice[] = ["approve", "deny", "none"];
const everyChoice = (n: number): Choice[][] =>
  n === 0 ? [[]] : everyChoice(n - 1).flatMap((rest) => CHOICES.map((choice) => [choice, ...rest]));

for (const { ids, waiting } of TREES) {
  const WAITING: string[] = [waiting.parent, waiting.research, waiting.mailer, waiting.notes];
  const WHO = new Map<string, string>(Object.entries(waiting).map(([who, id]) => [id, who]));
  const whoOf = (chained: readonly string[]) => chained.map((id) => WHO.get(id)).sort();
  const decisionsOf = (choices: readonly Choice[]): Record<string, Decision> => {
    const decisions: Record<string, Decision> = {};
    for (const [i, choice] of choices.entries()) {
      if (choice !== "none") decisions[WAITING[i] as string] = { approved: choice === "approve", reason: "r" };
    }
    return decisions;
  };

  describe(`no path runs a child's risky call without a decision for that very call (ids ${ids.r1}, ${ids.g1}, ${ids.r2})`, () => {
    for (const choices of everyChoice(WAITING.length)) {
      it(`decisions ${choices.join(", ")} for ${WAITING.join(", ")}: only the approved calls run, once; the rest wait`, async () => {
        const { sent, parent, registry } = mailTree(ids);
        const store = new MemoryEventStore();
        const paused = await runAgent("Mail.", parent, registry, { store, runId: "p" });
        expect(paused.pendingApprovals?.map((call) => call.id).sort()).toEqual([...WAITING].sort());
        expect(sent).toEqual([]);
        const given = decisionsOf(choices);
        const once = await resumeAgent("p", parent, registry, { store, decisions: given });
        const approved = Object.keys(given).filter((id) => given[id]?.approved);
        expect([...sent].sort()).toEqual(whoOf(approved));
        const undecided = WAITING.filter((id) => given[id] === undefined);
        if (undecided.length > 0) {
          expect(once.status).toBe("awaiting_approval");
          expect(once.pendingApprovals?.map((call) => call.id).sort()).toEqual([...undecided].sort());
          const rest = Object.fromEntries(undecided.map((id) => [id, { approved: true }]));
          const done = await resumeAgent("p", parent, registry, { store, decisions: rest });
          expect(done.status).toBe("done");
          expect([...sent].sort()).toEqual(whoOf([...approved, ...undecided]));
        } else expect(once).toMatchObject({ status: "done", answer: "All done." });
      });
    }

    it("a live approver is asked for each call by its chained id, and only the calls it approves run", async () => {
      const { parent: p, research: r, mailer: m, notes: n } = waiting;
      for (const approvedIds of [[], [p], [r], [m], [n], [p, m], [...WAITING]] as string[][]) {
        const { sent, parent, registry } = mailTree(ids);
        const asked: string[] = [];
        const approve = (call: { id: string }) => {
          asked.push(call.id);
          return { approved: approvedIds.includes(call.id) };
        };
        const result = await runAgent("Mail.", parent, registry, { approve });
        expect(result.status).toBe("done");
        expect(asked.sort()).toEqual([...WAITING].sort());
        expect([...sent].sort()).toEqual(whoOf(approvedIds));
      }
    });
  });
}

describe("a decision by the ids joined as they are", () => {
  it("is refused where it would name calls of two runs, and nothing runs", async () => {
    const { sent, parent, registry } = mailTree(SLASHED);
    const store = new MemoryEventStore();
    await runAgent("Mail.", parent, registry, { store, runId: "p" });
    await expect(
      resumeAgent("p", parent, registry, { store, decisions: { "a/x/%/e": { approved: true } } }),
    ).rejects.toThrow(/call 'a\/x\/%\/e' waits for no decision/);
    expect(sent).toEqual([]);
  });
});
