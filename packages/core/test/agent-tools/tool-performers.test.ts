import { describe, expect, it } from "vitest";
import { childToolOf, hasChildTools } from "../../src/driver.js";
import {
  agentTool,
  asks,
  askUserTool,
  final,
  runAgent,
  scriptedModel,
  type Tool,
  ToolRegistry,
  tool,
  toolCall,
} from "../../src/index.js";
import { checkAnswer } from "../../src/run/performers/ask-user.js";
import { askToolsOf } from "../../src/tools/ask-user-tool.js";

const TASK = { type: "object", properties: { task: { type: "string" } }, required: ["task"] } as const;
const QUESTION = { type: "object", properties: { question: { type: "string" } }, required: ["question"] } as const;

function researcher(): Tool<{ task: string }> {
  const model = scriptedModel([final("Lima.")]);
  return agentTool({ name: "research", description: "Research.", model, registry: new ToolRegistry() });
}

describe("the registry keeps how each tool is performed, with the tool", () => {
  it("knows an agent tool by the tool it was given, not by its function: the same function registered as a plain tool is plain", () => {
    const made = researcher();
    const agents = new ToolRegistry([made]);
    const plain = new ToolRegistry();
    plain.register("plain_research", "Research, as a plain function.", TASK, made.execute);
    expect(childToolOf(agents, "research")?.name).toBe("research");
    expect(hasChildTools(agents)).toBe(true);
    expect(childToolOf(plain, "plain_research")).toBeUndefined();
    expect(hasChildTools(plain)).toBe(false);
    expect(plain.performerOf("plain_research")).toBeUndefined();
    expect(agents.performerOf("research")?.kind).toBe("agent");
  });

  it("knows an ask-user tool by the tool it was given: its function registered under another name asks nobody", async () => {
    const ask = askUserTool({ answer: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } });
    const plain = new ToolRegistry();
    plain.register("echo", "Echo.", QUESTION, ask.execute);
    const asking = new ToolRegistry([ask]);
    expect(askToolsOf(asking)).toEqual([{ name: "ask_user", answer: expect.objectContaining({ type: "object" }) }]);
    expect(askToolsOf(plain)).toEqual([]);
    // The answer shape is the ask-user tool's own, and only where it is one.
    expect(await checkAnswer(asking, "ask_user", { n: "x" })).toMatchObject({ ok: false });
    expect(await checkAnswer(plain, "echo", { n: "x" })).toEqual({ ok: true, value: { n: "x" } });
  });

  it("keeps an agent tool recognised through a copy of the tool and a registry made from another's tools", async () => {
    const made = researcher();
    const copy = { ...made, description: "Research, described anew." };
    const registry = new ToolRegistry([copy]);
    expect(childToolOf(registry, "research")?.name).toBe("research");
    const parent = scriptedModel([asks(toolCall("r1", "research", { task: "Peru" })), final("Lima it is.")]);
    const result = await runAgent("Capital of Peru?", parent, registry);
    expect(result.messages[3]).toEqual({ role: "tool", toolCallId: "r1", name: "research", content: "Lima." });
  });

  it("holds plain tools (as MCP makes them) with no performer", () => {
    const plain = tool({
      name: "echo",
      description: "Echo.",
      parameters: QUESTION,
      execute: ({ question }) => question,
    });
    const registry = new ToolRegistry([plain]);
    expect(registry.performerOf("echo")).toBeUndefined();
    expect(registry.performerOf("missing")).toBeUndefined();
    expect(hasChildTools(registry)).toBe(false);
  });
});
