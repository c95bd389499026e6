import { describe, expect, it } from "vitest";
import {
  agentTool,
  asks,
  askUserTool,
  final,
  MemoryEventStore,
  readTree,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";

const ask = (id: string, question: string) => toolCall(id, "ask_user", { question });

describe("readTree's treeQuestions", () => {
  it("lists a paused tree's questions from the logs, the run's own first, a child's by chained id, as the paused result does", async () => {
    const child = scriptedModel([asks(ask("q1", "Which inbox?"))]);
    const registry = new ToolRegistry([
      askUserTool(),
      agentTool({ name: "research", description: "R.", model: child, registry: new ToolRegistry([askUserTool()]) }),
    ]);
    const parent = scriptedModel([
      asks(ask("q0", "Which day?"), toolCall("r1", "research", { task: "find the mail" })),
    ]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Find.", parent, registry, { store, runId: "p" });
    const listed = (await readTree(store, "p")).treeQuestions;
    expect(listed).toEqual([
      { id: "q0", question: "Which day?" },
      { id: "r1/q1", question: "Which inbox?" },
    ]);
    expect(listed).toEqual(paused.pendingQuestions);
  });

  it("lists none for a finished run", async () => {
    const store = new MemoryEventStore();
    await runAgent("Hi.", scriptedModel([final("Hello.")]), new ToolRegistry([askUserTool()]), { store, runId: "f" });
    expect((await readTree(store, "f")).treeQuestions).toEqual([]);
  });
});
