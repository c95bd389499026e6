import { describe, expect, it } from "vitest";
import {
  asks,
  countTokens,
  final,
  handoff,
  MemoryEventStore,
  replayRun,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { triageAndBilling } from "./handoff-fixture.js";

const TASK = "Refund order 7, please.";

describe("handoff: one agent gives the conversation to another", () => {
  it("answers the call at once, logs handoff { callId, from, to }, and goes on with the target's model, tools and system", async () => {
    const { triage, billing, triageTools, refunds } = triageAndBilling(
      [asks(toolCall("h1", "transfer_to_billing"))],
      [asks(toolCall("r1", "refund", { order: "7" })), final("Order 7 is refunded.")],
    );
    const store = new MemoryEventStore();
    const result = await runAgent(TASK, triage, triageTools, { system: "You are triage.", store, runId: "r" });
    expect(result).toMatchObject({ status: "done", answer: "Order 7 is refunded.", steps: 3, agent: "billing" });
    expect(refunds).toEqual(["7"]);
    expect(result.messages[3]).toEqual({
      role: "tool",
      toolCallId: "h1",
      name: "transfer_to_billing",
      content: "transferred to billing",
    });
    // Billing's model was called with its own system prompt and its own tools; the trace keeps the run's.
    expect(triage.seen).toHaveLength(1);
    expect(billing.seen).toHaveLength(2);
    expect(billing.seen[0]?.[0]).toEqual({ role: "system", content: "You are billing. Refund orders." });
    expect(billing.seen[0]?.slice(1)).toEqual(result.messages.slice(1, 4));
    expect(result.messages[0]).toEqual({ role: "system", content: "You are triage." });
    const log = await store.read("r");
    const handoffs = log.filter((event) => event.type === "handoff");
    expect(handoffs).toMatchObject([{ type: "handoff", callId: "h1", from: "triage", to: "billing" }]);
    expect(handoffs[0]).not.toHaveProperty("messages");
    // The tools billing was offered are its own: refund and the way back to triage.
    const started = log[0];
    expect(started?.type === "run.started" && started.settings.handoffs).toMatchObject({
      agent: "triage",
      agents: [
        { name: "triage", transfers: [{ tool: "transfer_to_billing", to: "billing" }] },
        { name: "billing", transfers: [{ tool: "transfer_to_triage", to: "triage" }] },
      ],
    });
    expect(replayRun(log).result).toMatchObject({ status: "done", agent: "billing", steps: 3 });
  });

  it("refuses the target a tool of the agent before it, though the conversation shows that tool's calls", async () => {
    // The bug filed as autogen#6859: after a handoff the target called a tool it saw in the history but was not given.
    const { triage, triageTools, refunds } = triageAndBilling(
      [asks(toolCall("l1", "lookup", { order: "7" })), asks(toolCall("h1", "transfer_to_billing"))],
      [
        asks(toolCall("l2", "lookup", { order: "8" })),
        asks(toolCall("h2", "transfer_to_billing")),
        final("I can only refund."),
      ],
    );
    const result = await runAgent(TASK, triage, triageTools, { maxSteps: 8 });
    expect(result).toMatchObject({ status: "done", agent: "billing", answer: "I can only refund." });
    const answers = result.messages.filter((message) => message.role === "tool");
    expect(answers.map((message) => [message.toolCallId, message.content])).toEqual([
      ["l1", JSON.stringify({ order: "7", total: 42 })],
      ["h1", "transferred to billing"],
      ["l2", expect.stringMatching(/^ERROR: unknown tool 'lookup'/)],
      ["h2", expect.stringMatching(/^ERROR: unknown tool 'transfer_to_billing'/)],
    ]);
    expect(refunds).toEqual([]);
  });

  it("takes the first handoff of a reply, runs its other calls, and answers every later handoff with ERROR:", async () => {
    const { triage, billing, triageTools } = triageAndBilling(
      [
        asks(
          toolCall("l1", "lookup", { order: "7" }),
          toolCall("h1", "transfer_to_billing"),
          toolCall("h2", "transfer_to_billing"),
        ),
      ],
      [final("Refunded.")],
    );
    const result = await runAgent(TASK, triage, triageTools, { name: "triage" });
    expect(result).toMatchObject({ status: "done", agent: "billing" });
    const tools = result.messages.filter((message) => message.role === "tool");
    expect(tools.map((message) => message.toolCallId)).toEqual(["l1", "h1", "h2"]);
    expect(tools[0]?.content).toBe('{"order":"7","total":42}');
    expect(tools[1]?.content).toBe("transferred to billing");
    expect(tools[2]).toMatchObject({ isError: true });
    expect(tools[2]?.content).toMatch(/^ERROR: only one handoff is made per reply: call 'h1' already gives/);
    expect(billing.seen).toHaveLength(1);
  });

  it("counts every model call of every agent against one step limit and one token budget", async () => {
    const { triage, triageTools } = triageAndBilling(
      [asks(toolCall("h1", "transfer_to_billing")), asks(toolCall("h3", "transfer_to_billing"))],
      [asks(toolCall("h2", "transfer_to_triage")), asks(toolCall("h4", "transfer_to_triage"))],
    );
    const limited = await runAgent(TASK, triage, triageTools, { maxSteps: 3 });
    expect(limited).toMatchObject({ status: "step_limit", steps: 3, agent: "billing" });

    // The check before billing's first call counts billing's prompt (its system prompt and tools) on top of what triage spent.
    const first = triageAndBilling([asks(toolCall("h1", "transfer_to_billing"))], [final("Done.")]);
    const afterTriage = (await runAgent(TASK, first.triage, first.triageTools, { maxSteps: 1 })).tokens;
    const second = triageAndBilling([asks(toolCall("h1", "transfer_to_billing"))], [final("Done.")]);
    const full = await runAgent(TASK, second.triage, second.triageTools, {});
    const billingPrompt = countTokens(second.billing.seen[0]) + countTokens(second.billingTools.specs());
    expect(full.tokens).toBe(afterTriage + billingPrompt + countTokens(full.messages.at(-1)));
    const third = triageAndBilling([asks(toolCall("h1", "transfer_to_billing"))], [final("Done.")]);
    const short = await runAgent(TASK, third.triage, third.triageTools, {
      tokenBudget: afterTriage + billingPrompt - 1,
    });
    expect(short).toMatchObject({ status: "token_budget", steps: 1, agent: "billing" });
    expect(third.billing.seen).toHaveLength(0);
  });

  it("runs the target's tools under the run's approvals", async () => {
    const billingTools = new ToolRegistry();
    billingTools.register("refund", "Refunds.", { type: "object", properties: {} }, () => "ok", {
      needsApproval: true,
    });
    const agents = () => {
      const billing = scriptedModel([asks(toolCall("r1", "refund")), final("Not refunded.")]);
      const triage = scriptedModel([asks(toolCall("h1", "transfer_to_billing"))]);
      return {
        triage,
        tools: new ToolRegistry([handoff({ name: "billing", model: billing, registry: billingTools })]),
      };
    };
    const first = agents();
    const paused = await runAgent(TASK, first.triage, first.tools, {});
    expect(paused).toMatchObject({ status: "awaiting_approval", agent: "billing", pendingApprovals: [{ id: "r1" }] });
    const second = agents();
    const denied = await runAgent(TASK, second.triage, second.tools, { approve: () => ({ approved: false }) });
    expect(denied).toMatchObject({ status: "done", answer: "Not refunded.", agent: "billing" });
    expect(denied.messages.at(-2)).toMatchObject({ toolCallId: "r1", isError: true });
  });

  it("leaves a run without handoff tools as it was: no agent in the result, no handoffs in the settings", async () => {
    const result = await runAgent("Hi", scriptedModel([final("Hello.")]), new ToolRegistry(), { name: "solo" });
    expect(result).not.toHaveProperty("agent");
  });
});
