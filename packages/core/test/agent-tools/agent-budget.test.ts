import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { promptTokens } from "../../src/decide/index.js";
import {
  agentTool,
  asks,
  final,
  MemoryEventStore,
  type Message,
  type ModelReply,
  replayRun,
  runAgent,
  type ToolCall,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import type { StoredEvent } from "../../src/store.js";
import { searchTree } from "./agent-tree-fixture.js";

/** The `tokenBudget` a child run was started with, from its log. */
async function childBudget(store: MemoryEventStore, runId: string): Promise<number> {
  const [started] = await store.read(runId);
  if (started?.type !== "run.started") throw new Error(`no log for ${runId}`);
  return started.settings.tokenBudget;
}

const searches = (n: number) =>
  Array.from({ length: n }, (_, i) => asks(toolCall(`s${i}`, "search", { q: `query ${i}` })));

describe("one budget for the tree", () => {
  it("cuts a child's budget to what the parent has left, less its next prompt; the tree never spends more than the parent's budget", async () => {
    const { registry } = searchTree(searches(40));
    const store = new MemoryEventStore();
    const parent = scriptedWithLimit([asks(toolCall("r1", "research", { task: "dig" })), final("Nothing found.")], 0);
    const result = await runAgent("Research.", parent, registry, { store, runId: "p", tokenBudget: 1500 });
    const budget = await childBudget(store, "p.r1");
    // The parent had spent one call (its prompt and reply) and keeps its next prompt's size.
    const beforeChild = replayRun((await store.read("p")).slice(0, 2));
    const spent = beforeChild.context.tokens;
    expect(budget).toBeLessThan(1500 - spent);
    expect(budget).toBeGreaterThan(0);
    const child = replayRun(await store.read("p.r1")).result;
    expect(child?.status).toBe("token_budget");
    expect(result.messages[3]).toMatchObject({ isError: true });
    expect(result.tokens).toBeLessThanOrEqual(1500);
  });

  it("counts the child's tokens in every budget check after: a second child gets what the first left", async () => {
    const { registry } = searchTree([...searches(2), final("First."), final("Second.")]);
    const dig = (id: string) => asks(toolCall(id, "research", { task: `dig ${id}` }));
    const parent = scriptedWithLimit([dig("r1"), dig("r2"), final("Done.")], 0);
    const store = new MemoryEventStore();
    await runAgent("Research.", parent, registry, { store, runId: "p", tokenBudget: 3000 });
    const log = await store.read("p");
    const first = replayRun(await store.read("p.r1")).context.tokens;
    const secondReply = log.filter((e) => e.type === "model.replied")[1] as StoredEvent;
    const prefix = log.slice(0, secondReply.seq + 1);
    const withChild = replayRun(prefix).context;
    const without = replayRun(
      prefix.map((e): StoredEvent => (e.type === "tool.finished" ? { ...e, tokens: 0 } : e)),
    ).context;
    expect(withChild.tokens).toBe(without.tokens + first);
    expect(await childBudget(store, "p.r2")).toBe(Math.floor(3000 - withChild.tokens - promptTokens(withChild)));
  });

  it("shares what is left among the agent calls of one reply, so children in parallel get a share each", async () => {
    const { registry } = searchTree([final("A."), final("B."), final("C.")]);
    const store = new MemoryEventStore();
    const calls = ["r1", "r2", "r3"].map((id) => toolCall(id, "research", { task: id }));
    const parent = scriptedWithLimit([asks(...calls), final("Done.")], 0);
    await runAgent("Research.", parent, registry, { store, runId: "p", tokenBudget: 3000 });
    const budgets = await Promise.all(["p.r1", "p.r2", "p.r3"].map((id) => childBudget(store, id)));
    expect(budgets.every((b) => b > 0)).toBe(true);
    const left = 3000 - replayRun((await store.read("p")).slice(0, 2)).context.tokens;
    expect(budgets.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(left);
  });

  it("property: children in parallel, finishing in any order, never spend more together than the parent had", async () => {
    await fc.assert(
      fc.asyncProperty(treePlan(), async (plan) => {
        const store = new MemoryEventStore();
        const result = await runTree(plan, store);
        expect(result.tokens).toBeLessThanOrEqual(plan.tokenBudget);
        const children = (await store.list()).filter((run) => run.runId !== "p");
        const childTokens = await Promise.all(
          children.map(async ({ runId }) => replayRun(await store.read(runId)).context.tokens),
        );
        const budgets = await Promise.all(children.map(({ runId }) => childBudget(store, runId)));
        for (const [index, spent] of childTokens.entries()) expect(spent).toBeLessThanOrEqual(budgets[index] as number);
        expect(childTokens.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(plan.tokenBudget);
      }),
      { numRuns: 60 },
    );
  });
});

interface TreePlan {
  readonly tokenBudget: number;
  readonly childBudget: number;
  readonly toolConcurrency: number;
  /** Per call of the parent's one reply: how many searches its child makes before it answers, and how long it dawdles. */
  readonly children: readonly { readonly searches: number; readonly delay: number }[];
}

function treePlan(): fc.Arbitrary<TreePlan> {
  return fc.record({
    tokenBudget: fc.integer({ min: 200, max: 6000 }),
    childBudget: fc.integer({ min: 100, max: 4000 }),
    toolConcurrency: fc.constantFrom(1, 2, Number.POSITIVE_INFINITY),
    children: fc.array(fc.record({ searches: fc.nat(12), delay: fc.nat(5) }), { minLength: 1, maxLength: 4 }),
  });
}

/** The longest reply of these scripts, in tokens: every model says so (`maxReplyTokens`), so budgets reserve it. */
const MAX_REPLY = 120;

async function runTree(plan: TreePlan, store: MemoryEventStore) {
  const inner = new ToolRegistry();
  inner.register("search", "Search.", { type: "object", properties: { q: { type: "string" } } }, () =>
    "hit ".repeat(60),
  );
  const child = Object.assign(
    async (messages: readonly Message[]): Promise<ModelReply> => {
      const task = (messages[1] as { content: string }).content;
      const planned = plan.children[Number(task)] as TreePlan["children"][number];
      for (let i = 0; i < planned.delay; i++) await Promise.resolve();
      const done = messages.filter((m) => m.role === "assistant").length;
      return done < planned.searches
        ? asks(toolCall(`s${done}`, "search", { q: `q${done}` }))
        : final(`answer ${task}`);
    },
    { maxReplyTokens: MAX_REPLY },
  );
  const research = agentTool({
    name: "research",
    description: "Researches.",
    model: child,
    registry: inner,
    options: { tokenBudget: plan.childBudget },
  });
  const calls: ToolCall[] = plan.children.map((_, i) => toolCall(`r${i}`, "research", { task: String(i) }));
  const parent = scriptedWithLimit([asks(...calls), final("Done.")], MAX_REPLY);
  return runAgent("Research.", parent, new ToolRegistry([research]), {
    store,
    runId: "p",
    tokenBudget: plan.tokenBudget,
    toolConcurrency: plan.toolConcurrency,
  });
}

/** A scripted model that says how long its replies can be, and counts its calls. */
function scriptedWithLimit(replies: ModelReply[], maxReplyTokens: number) {
  let next = 0;
  const model = Object.assign(
    () => {
      model.calls += 1;
      const reply = replies[next++];
      if (reply === undefined) throw new Error("script ran out");
      return reply;
    },
    { maxReplyTokens, calls: 0 },
  );
  return model;
}
