import { describe, expect, it } from "vitest";
import {
  asks,
  final,
  MemoryEventStore,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  tool,
  toolCall,
} from "../../src/index.js";

describe("a tool's notes: what it logs to go on with the same work when it is made again", () => {
  it("are logged before the call goes on and given back to the call's next attempt, in a resumed run too", async () => {
    const seen: unknown[][] = [];
    const book = tool({
      name: "book",
      description: "Books a room.",
      parameters: { type: "object", properties: {} },
      execute: async (_args, context) => {
        seen.push([...context.notes]);
        if (context.notes.length === 0) await context.note({ booking: "b-1" });
        const nights = await context.ask("How many nights?");
        return { booking: (context.notes[0] as { booking: string } | undefined)?.booking ?? "b-1", nights };
      },
    });
    const registry = new ToolRegistry([book]);
    const model = scriptedModel([asks(toolCall("c1", "book")), final("Booked.")]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Book.", model, registry, { store, runId: "r" });
    expect(paused.status).toBe("awaiting_input");
    const log = await store.read("r");
    expect(log.filter((event) => event.type === "tool.noted")).toMatchObject([
      { callId: "c1", note: { booking: "b-1" } },
    ]);
    expect(replayRun(log).snapshot.value).toEqual({ executingTools: "awaitingInput" });
    const done = await resumeAgent("r", model, registry, { store, answers: { c1: 2 } });
    expect(String(done.messages[3]?.content)).toMatch(/^\{"booking":"b-1","nights":2\}/);
    expect(seen).toEqual([[], [{ booking: "b-1" }]]);
    expect((await store.read("r")).filter((event) => event.type === "tool.noted")).toHaveLength(1);
  });

  it("refuses a note that is not plain JSON, as the tool's failure", async () => {
    const odd = tool({
      name: "odd",
      description: "Notes a function.",
      parameters: { type: "object", properties: {} },
      execute: async (_args, context) => {
        await context.note({ f: () => 1 });
        return "never";
      },
    });
    const result = await runAgent(
      "Go.",
      scriptedModel([asks(toolCall("c1", "odd")), final("ok")]),
      new ToolRegistry([odd]),
    );
    expect(result.messages[3]?.content).toMatch(/^ERROR: .*a tool's note must be plain JSON/);
  });

  it("are kept nowhere outside a run", async () => {
    let notes: readonly unknown[] = ["x"];
    const registry = new ToolRegistry([
      tool({
        name: "t",
        description: "t",
        parameters: { type: "object", properties: {} },
        execute: async (_args, context) => {
          await context.note(1);
          notes = context.notes;
          return "ok";
        },
      }),
    ]);
    expect(await registry.execute("t", {})).toBe('"ok"');
    expect(notes).toEqual([]);
  });
});
