import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent, Interrupt } from "@ag-ui/core";
import { asks, final, toolCall } from "@agentloop/core";
import { afterEach, describe, expect, it } from "vitest";
import { agUiHandler } from "../src/index.js";
import { emailAgent } from "./fixture.js";
import { serveOnLoopback } from "./http-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("@ag-ui/client's HttpAgent against agUiHandler", () => {
  it("runs an interrupt/resume round trip: the approval ends the run with an interrupt outcome, resume[] decides it with the payload its responseSchema asks for, no tool call echoed (ag-ui-protocol/ag-ui#2815)", async () => {
    const { serve, sent, store } = emailAgent([
      asks(toolCall("w1", "get_weather", { city: "Pune" }), toolCall("e1", "send_email", { to: "ana" })),
      final("It is 31 °C in Pune; ana has it by email."),
    ]);
    const server = await serveOnLoopback(agUiHandler(serve));
    closers.push(server.close);
    const agent = new HttpAgent({ url: server.url, threadId: "thread-1" });
    agent.addMessage({ id: "u1", role: "user", content: "Email ana the weather in Pune." });

    const seen: BaseEvent[] = [];
    let interrupts: Interrupt[] = [];
    const first = await agent.runAgent(
      { runId: "run-1" },
      {
        onEvent: ({ event }) => {
          seen.push(event);
        },
        onRunFinishedEvent: (params) => {
          if (params.outcome === "interrupt") interrupts = params.interrupts;
        },
      },
    );
    expect(interrupts).toEqual([
      expect.objectContaining({
        id: "e1",
        reason: "tool_approval",
        toolCallId: "e1",
        metadata: { toolName: "send_email", args: { to: "ana" } },
      }),
    ]);
    expect(agent.pendingInterrupts.map((interrupt) => interrupt.id)).toEqual(["e1"]);
    expect(sent).toEqual([]);
    expect(seen.map((event) => event.type)).toContain("TOOL_CALL_RESULT");
    expect(first.newMessages.some((message) => message.role === "tool" && message.toolCallId === "w1")).toBe(true);

    const resumed: BaseEvent[] = [];
    let answer: unknown;
    await agent.runAgent(
      { runId: "run-2", resume: [{ interruptId: "e1", status: "resolved", payload: { approved: true } }] },
      {
        onEvent: ({ event }) => {
          resumed.push(event);
        },
        onRunFinishedEvent: (params) => {
          if (params.outcome === "success") answer = params.result;
        },
      },
    );
    expect(sent).toEqual(["ana"]);
    expect(answer).toEqual({ status: "done", answer: "It is 31 °C in Pune; ana has it by email." });
    expect(agent.pendingInterrupts).toEqual([]);
    expect(resumed.find((event) => event.type === "TOOL_CALL_RESULT")).toMatchObject({ toolCallId: "e1" });
    // The conversation is one logged run under the thread id.
    const log = await store.read("thread-1");
    expect(log.at(-1)).toMatchObject({ type: "run.finished" });
  });

  it("a cancelled resume entry denies the call: nothing is sent and the model is told", async () => {
    const { serve, sent, model } = emailAgent([
      asks(toolCall("e1", "send_email", { to: "ana" })),
      final("I did not email ana."),
    ]);
    const server = await serveOnLoopback(agUiHandler(serve));
    closers.push(server.close);
    const agent = new HttpAgent({ url: server.url, threadId: "thread-2" });
    agent.addMessage({ id: "u1", role: "user", content: "Email ana." });
    await agent.runAgent({ runId: "a" });
    expect(agent.pendingInterrupts.map((interrupt) => interrupt.id)).toEqual(["e1"]);
    await agent.runAgent({ runId: "b", resume: [{ interruptId: "e1", status: "cancelled" }] });
    expect(sent).toEqual([]);
    expect(JSON.stringify(model.seen.at(-1))).toContain("the user cancelled the request");
  });
});
