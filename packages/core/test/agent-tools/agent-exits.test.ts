import { describe, expect, it } from "vitest";
import { AGENT_STATUSES } from "../../src/data/index.js";
import {
  agentTool,
  asks,
  final,
  runAgent,
  scriptedModel,
  streamAgent,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { observationOf } from "../../src/run/index.js";
import { searchTree } from "./agent-tree-fixture.js";

describe("a child's exits, as its parent's model is told of them", () => {
  for (const status of AGENT_STATUSES) {
    it(`${status}: ${status === "done" ? "the answer" : "an ERROR: naming the status"}`, () => {
      const result = { status, answer: status === "done" ? "Lima." : "partial", steps: 2, tokens: 90, messages: [] };
      const observation = observationOf("research", result);
      if (status === "done") expect(observation).toBe("Lima.");
      else {
        expect(observation.startsWith(`ERROR: research ended with status ${status} `)).toBe(true);
        expect(observation).toContain("Its last words: partial");
      }
    });
  }

  it("streams the parent's events while a child runs, and the child's answer is the tool's result", async () => {
    const { registry } = searchTree([final("Lima.")]);
    const stream = streamAgent(
      "Capital?",
      scriptedModel([asks(toolCall("r1", "research", { task: "t" })), final("Lima.")]),
      registry,
    );
    const seen: string[] = [];
    for await (const event of stream) {
      if (event.type === "logged" && event.event.type === "tool.finished") seen.push(String(event.event.content));
    }
    expect(seen).toEqual(["Lima."]);
    expect((await stream.result).status).toBe("done");
  });

  it("runs a child on its own when its tool is called outside a run", async () => {
    const { registry } = searchTree([final("Lima.")]);
    expect(await registry.execute("research", { task: "t" })).toBe('"Lima."');
    expect(await registry.execute("research", {})).toMatch(/^ERROR: /);
    const result = await runAgent("x", scriptedModel([asks(toolCall("r1", "research", {})), final("no")]), registry);
    expect(result.messages[3]).toMatchObject({ isError: true });
  });
});

describe("an agent tool's own timeoutMs", () => {
  it("cancels a child that runs past it, and the parent's model is told so", async () => {
    const hanging = (_messages: unknown, _tools: unknown, options: { signal: AbortSignal }) =>
      new Promise<never>((_, reject) => options.signal.addEventListener("abort", () => reject(options.signal.reason)));
    const slow = agentTool({
      name: "slow",
      description: "Slow.",
      model: hanging,
      registry: new ToolRegistry(),
      timeoutMs: 30,
    });
    const parent = scriptedModel([asks(toolCall("r1", "slow", { task: "t" })), final("It took too long.")]);
    const result = await runAgent("Go.", parent, new ToolRegistry([slow]));
    expect(result.status).toBe("done");
    expect((result.messages[3] as { content: string }).content).toMatch(/^ERROR: slow ended with status cancelled/);
  });
});
