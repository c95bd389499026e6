import { describe, expect, it } from "vitest";
import {
  agentTool,
  asks,
  final,
  MemoryEventStore,
  replayRun,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import type { StoredEvent } from "../../src/store.js";
import { searchTree } from "./agent-tree-fixture.js";

const research = (id: string, task = "find the capital of Peru") => toolCall(id, "research", { task });

describe("agentTool: a call runs a child run", () => {
  it("gives the child's answer as the parent's observation; the child has its own list and system prompt", async () => {
    const { child, registry, searched } = searchTree([
      asks(toolCall("s1", "search", { q: "Peru capital" })),
      final("Lima."),
    ]);
    const parent = scriptedModel([asks(research("r1")), final("The capital is Lima.")]);
    const result = await runAgent("What is the capital of Peru?", parent, registry, { system: "You plan." });
    expect(result.status).toBe("done");
    expect(result.messages[3]).toEqual({ role: "tool", toolCallId: "r1", name: "research", content: "Lima." });
    expect(searched).toEqual(["Peru capital"]);
    // The child saw only its own system prompt and its task, never the parent's list.
    expect(child.seen[0]).toEqual([
      { role: "system", content: "You search." },
      { role: "user", content: "find the capital of Peru" },
    ]);
    expect(child.seen[1]).toHaveLength(4);
  });

  it("gives a child's output as JSON", async () => {
    const output = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const;
    const { registry } = searchTree([final('{"city":"Lima"}')], { options: { output } });
    const parent = scriptedModel([asks(research("r1")), final("Lima.")]);
    const result = await runAgent("Capital of Peru?", parent, registry);
    expect(result.messages[3]).toMatchObject({ content: '{"city":"Lima"}' });
  });

  it("tells the parent's model, as an ERROR: naming the status, of a child that ends otherwise, and the parent goes on", async () => {
    // The child's own maxSteps is the one its run keeps, whatever the parent's (openai-agents-js#444).
    const loop = Array.from({ length: 5 }, (_, i) => asks(toolCall(`s${i}`, "search", { q: `q${i}` })));
    const { registry, searched } = searchTree(loop, { options: { maxSteps: 3 } });
    const parent = scriptedModel([asks(research("r1")), final("I could not find it.")]);
    const store = new MemoryEventStore();
    const result = await runAgent("Capital of Peru?", parent, registry, { store, runId: "p", maxSteps: 20 });
    expect(result.status).toBe("done");
    const observation = result.messages[3];
    expect(observation).toMatchObject({ role: "tool", toolCallId: "r1", isError: true });
    expect((observation as { content: string }).content).toMatch(/^ERROR: research ended with status step_limit/);
    expect(searched).toHaveLength(3);
    const [started] = await store.read("p.r1");
    expect(started).toMatchObject({
      type: "run.started",
      settings: { maxSteps: 3 },
      parent: { runId: "p", callId: "r1" },
    });
  });

  it("counts the child's tokens in the parent's tokens, and replay gives the same count", async () => {
    const { registry } = searchTree([asks(toolCall("s1", "search", { q: "Peru" })), final("Lima.")]);
    const store = new MemoryEventStore();
    const parent = scriptedModel([asks(research("r1")), final("Lima.")]);
    const result = await runAgent("Capital of Peru?", parent, registry, { store, runId: "p" });
    const child = replayRun(await store.read("p.r1"));
    const childTokens = child.result?.tokens ?? 0;
    expect(childTokens).toBeGreaterThan(0);
    const log = await store.read("p");
    const own = log.flatMap((e) => (e.type === "model.replied" ? [e] : [])).length;
    expect(own).toBe(2);
    const finished = log.find((e) => e.type === "tool.finished");
    expect(finished).toMatchObject({ childRunId: "p.r1", tokens: childTokens });
    expect(log.find((e) => e.type === "tool.started")).toMatchObject({ childRunId: "p.r1" });
    expect(replayRun(log).result?.tokens).toBe(result.tokens);
    // The same log without the child's tokens: the parent's own calls only.
    const apart: StoredEvent[] = log.flatMap((e): StoredEvent[] =>
      e.type === "run.finished" ? [] : e.type === "tool.finished" ? [{ ...e, tokens: 0 }] : [e],
    );
    expect(replayRun(apart).result?.tokens).toBe(result.tokens - childTokens);
  });

  it("works at any depth: a child's agent tool runs a grandchild, and the run ids chain", async () => {
    const grandchild = scriptedModel([final("Lima.")]);
    const lookup = agentTool({
      name: "lookup",
      description: "Looks up.",
      model: grandchild,
      registry: new ToolRegistry(),
    });
    const child = scriptedModel([asks(toolCall("g1", "lookup", { task: "capital of Peru" })), final("It is Lima.")]);
    const middle = agentTool({
      name: "research",
      description: "Researches.",
      model: child,
      registry: new ToolRegistry([lookup]),
    });
    const store = new MemoryEventStore();
    const parent = scriptedModel([asks(research("r1")), final("Lima.")]);
    const result = await runAgent("Capital?", parent, new ToolRegistry([middle]), { store, runId: "p" });
    expect(result.messages[3]).toMatchObject({ content: "It is Lima." });
    expect((await store.read("p.r1.g1"))[0]).toMatchObject({ parent: { runId: "p.r1", callId: "g1" } });
    const grand = replayRun(await store.read("p.r1.g1")).result?.tokens ?? 0;
    const middleTokens = replayRun(await store.read("p.r1")).result?.tokens ?? 0;
    expect(middleTokens).toBeGreaterThan(grand);
    expect((await store.read("p.r1")).find((e) => e.type === "tool.finished")).toMatchObject({ tokens: grand });
  });

  it("cancels every child in flight when the parent's signal aborts", async () => {
    const controller = new AbortController();
    let childSignal: AbortSignal | undefined;
    const hanging = Object.assign((_messages: unknown, _tools: unknown, options: { signal: AbortSignal }) => {
      childSignal = options.signal;
      controller.abort();
      return new Promise<never>((_, reject) =>
        options.signal.addEventListener("abort", () => reject(options.signal.reason)),
      );
    }, {});
    const registry = new ToolRegistry([
      agentTool({ name: "research", description: "Researches.", model: hanging, registry: new ToolRegistry() }),
    ]);
    const store = new MemoryEventStore();
    const parent = scriptedModel([asks(research("r1"), research("r2"))]);
    const result = await runAgent("Go.", parent, registry, { store, runId: "p", signal: controller.signal });
    expect(result.status).toBe("cancelled");
    expect(childSignal?.aborted).toBe(true);
    for (const id of ["p.r1", "p.r2"]) {
      const log = await store.read(id);
      expect(log.at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "cancelled" } });
    }
  });
});
