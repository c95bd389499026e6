import { HttpAgent, verifyEvents } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { asks, final, MemoryEventStore, scriptedModel, ToolRegistry, tool, toolCall } from "@agentloop/core";
import { from, lastValueFrom, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { agUiHandler } from "../src/index.js";
import { serveOnLoopback } from "./http-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("a question a running tool asks (ask() inside execute), answered through resume[]", () => {
  it("the call gets one result, the tool's own, under one message id", async () => {
    const booking = tool({
      name: "book",
      description: "Books a flight.",
      parameters: { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
      execute: async ({ to }: { to: string }, { ask }) => ({ booked: to, seat: await ask(`Which seat to ${to}?`) }),
    });
    const model = scriptedModel([asks(toolCall("b1", "book", { to: "Lima" })), final("Seat 3A to Lima.")]);
    const handler = agUiHandler({ model, registry: new ToolRegistry([booking]), store: new MemoryEventStore() });
    const server = await serveOnLoopback(handler);
    closers.push(server.close);
    const agent = new HttpAgent({ url: server.url, threadId: "trip" });
    agent.addMessage({ id: "u1", role: "user", content: "Book Lima." });
    await agent.runAgent({ runId: "r1" });
    expect(agent.pendingInterrupts.map((interrupt) => interrupt.id)).toEqual(["b1"]);
    const seen: BaseEvent[] = [];
    await agent.runAgent(
      { runId: "r2", resume: [{ interruptId: "b1", status: "resolved", payload: "3A" }] },
      { onEvent: ({ event }) => void seen.push(event) },
    );
    await lastValueFrom(from(seen).pipe(verifyEvents(), toArray()));
    const results = seen.filter((event) => event.type === "TOOL_CALL_RESULT") as unknown as {
      messageId: string;
      toolCallId: string;
      content: string;
    }[];
    // One result for b1: the tool's own result, once.
    expect(results.map(({ messageId, toolCallId }) => ({ messageId, toolCallId }))).toEqual([
      { messageId: "r2-result-b1", toolCallId: "b1" },
    ]);
    expect(results[0]?.content).toContain(JSON.stringify({ booked: "Lima", seat: "3A" }));
    // HttpAgent's messages: ids unique, one tool message for the call.
    expect(new Set(agent.messages.map((message) => message.id)).size).toBe(agent.messages.length);
    expect(agent.messages.filter((message) => message.role === "tool")).toHaveLength(1);
  });
});
