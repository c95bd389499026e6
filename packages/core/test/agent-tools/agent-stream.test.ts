import { describe, expect, it } from "vitest";
import {
  type AgentStreamEvent,
  agentTool,
  asks,
  final,
  MemoryEventStore,
  runAgent,
  scriptedModel,
  streamAgent,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { searchTree } from "./agent-tree-fixture.js";

const research = (id: string, task = "find the capital of Peru") => toolCall(id, "research", { task });

function outline(events: readonly AgentStreamEvent[]): string[] {
  return events.flatMap((event) => {
    if (event.type.endsWith("-delta")) return [];
    const from = event.origin === undefined ? "" : ` <${event.origin.callPath.join("/")}>`;
    if (event.type === "logged") {
      const id = "callId" in event.event ? ` ${event.event.callId}` : "";
      return [`${event.event.type}${id}${from}`];
    }
    const id = "call" in event ? ` ${event.call.id}` : "step" in event ? ` ${event.step}` : "";
    return [`${event.type}${id}${from}`];
  });
}

describe("a parent hears its children's events, tagged with where they come from", () => {
  it("tags a child's steps, text and tool calls with its run and call; the parent's own stay untagged", async () => {
    const { registry } = searchTree([asks(toolCall("s1", "search", { q: "Peru capital" })), final("Lima.")]);
    const parent = scriptedModel([asks(research("r1")), final("The capital is Lima.")]);
    const heard: AgentStreamEvent[] = [];
    const store = new MemoryEventStore();
    const result = await runAgent("Capital of Peru?", parent, registry, {
      store,
      runId: "p",
      onEvent: (event) => heard.push(event),
    });
    expect(result.status).toBe("done");
    expect(outline(heard)).toEqual([
      "run.started",
      "step-started 1",
      "model.replied",
      "tool.started r1",
      "run.started <r1>",
      "step-started 1 <r1>",
      "model.replied <r1>",
      "tool.started s1 <r1>",
      "tool.finished s1 <r1>",
      "step-started 2 <r1>",
      "model.replied <r1>",
      "run.finished <r1>",
      "finished <r1>",
      "tool.finished r1",
      "step-started 2",
      "model.replied",
      "run.finished",
      "finished",
    ]);
    const childText = heard.flatMap((e) => (e.type === "text-delta" && e.origin !== undefined ? [e.text] : []));
    expect(childText.join("")).toBe("Lima.");
    const ownText = heard.flatMap((e) => (e.type === "text-delta" && e.origin === undefined ? [e.text] : []));
    expect(ownText.join("")).toBe("The capital is Lima.");
    const tagged = heard.find((e) => e.type === "logged" && e.event.type === "tool.started" && e.event.callId === "s1");
    expect(tagged?.origin).toEqual({ runId: "p.r1", callPath: ["r1"] });
  });

  it("chains the call path at any depth, and names the deepest run; without a store, the run id is left out", async () => {
    const { registry: inner } = searchTree([final("Lima.")]);
    const middle = scriptedModel([asks(research("m1")), final("Lima, says research.")]);
    const registry = new ToolRegistry([
      agentTool({ name: "plan", description: "Plans.", model: middle, registry: inner }),
    ]);
    const top = scriptedModel([asks(toolCall("t1", "plan", { task: "capital of Peru" })), final("Lima.")]);
    const stream = streamAgent("Capital of Peru?", top, registry);
    const events: AgentStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const deepest = events.filter((e) => e.origin?.callPath.length === 2);
    expect(outline(deepest)).toEqual([
      "run.started <t1/m1>",
      "step-started 1 <t1/m1>",
      "model.replied <t1/m1>",
      "run.finished <t1/m1>",
      "finished <t1/m1>",
    ]);
    expect(deepest[0]?.origin).toEqual({ callPath: ["t1", "m1"] });
    // Deltas of a child and of its parent, at the same step, are never merged together.
    const text = (path: string) =>
      events
        .flatMap((e) => (e.type === "text-delta" && (e.origin?.callPath.join("/") ?? "") === path ? [e.text] : []))
        .join("");
    expect(text("t1/m1")).toBe("Lima.");
    expect(text("t1")).toBe("Lima, says research.");
    expect(text("")).toBe("Lima.");
    expect((await stream.result).status).toBe("done");
  });
});
