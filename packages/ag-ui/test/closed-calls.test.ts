import { HttpAgent, verifyEvents } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { asks, final, MemoryEventStore, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import { from, lastValueFrom, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { agUiHandler } from "../src/index.js";
import { input, post, readEvents } from "./fixture.js";
import { serveOnLoopback } from "./http-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function lookUp(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register("look_up", "Look it up.", { type: "object", properties: { q: { type: "string" } } }, () => "found");
  return registry;
}

const repeating = () =>
  scriptedModel([asks(toolCall("c1", "look_up", { q: "x" })), asks(toolCall("c2", "look_up", { q: "x" })), final("-")]);

// RunFinishedSuccessOutcome.pendingToolCallIds (@ag-ui/core): "The tool calls this run started and left
// unanswered — no TOOL_CALL_RESULT in the run — for the application to answer in the next input's messages
// ... Absent or empty means the producer named none, and a consumer derives the list from the stream"
// (ag-ui-protocol/ag-ui#2731).
describe("a run that stops on a call it never runs leaves no call for the application to answer", () => {
  it("repeated_call (onRepeatedCall: stop): HttpAgent is told of no pending tool call", async () => {
    const options = { repeatLimit: 2, onRepeatedCall: "stop" as const };
    const serve = { model: repeating(), registry: lookUp(), store: new MemoryEventStore(), options };
    const events = await readEvents(await agUiHandler(serve)(post(input("rep", "r1", "Look x up."))));
    await lastValueFrom(from(events as BaseEvent[]).pipe(verifyEvents(), toArray()));
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", result: { status: "repeated_call" } });

    const server = await serveOnLoopback(agUiHandler({ ...serve, model: repeating(), store: new MemoryEventStore() }));
    closers.push(server.close);
    const agent = new HttpAgent({ url: server.url, threadId: "rep" });
    agent.addMessage({ id: "u1", role: "user", content: "Look x up." });
    let pending: string[] | undefined;
    await agent.runAgent(
      { runId: "r1" },
      {
        onRunFinishedEvent: (params) => {
          if (params.outcome === "success") pending = params.pendingToolCallIds;
        },
      },
    );
    expect(pending).toEqual([]);
  });
});
