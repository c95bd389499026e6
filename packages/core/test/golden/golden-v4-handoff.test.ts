import { describe, expect, it } from "vitest";
import {
  continueAgent,
  final,
  handoff,
  replayRun,
  resumeAgent,
  scriptedModel,
  ToolRegistry,
  tool,
} from "../../src/index.js";
import { goldenStore, never } from "./golden-store.js";

// A golden log of schema 4, written once and never regenerated: triage hands the conversation to
// billing through a filter that keeps the user's messages; billing's refund notes its refund id
// (tool.noted) and billing answers.

/** The agents as the run was started with them; `made` hears every refund that runs. */
function agents(made: string[], billing = never) {
  const billingTools = new ToolRegistry([
    tool({
      name: "refund",
      description: "Refunds an order.",
      parameters: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
      idempotent: true,
      execute: ({ order }: { order: string }) => {
        made.push(order);
        return { refunded: order };
      },
    }),
  ]);
  return new ToolRegistry([
    handoff(
      { name: "billing", description: "Refunds.", model: billing, registry: billingTools, system: "You are billing." },
      { inputFilter: () => [] },
    ),
  ]);
}

describe("golden log v4-handoff", () => {
  it("replays to its recorded result: the handoff with what billing was shown, the note, billing's answer", async () => {
    const events = await goldenStore().read("v4-handoff");
    expect(events.map((event) => event.type)).toEqual([
      "run.started",
      "model.replied",
      "handoff",
      "model.replied",
      "tool.started",
      "tool.noted",
      "tool.finished",
      "model.replied",
      "run.finished",
    ]);
    expect(events[2]).toMatchObject({
      callId: "h1",
      from: "triage",
      to: "billing",
      messages: [{ role: "user", content: "Please refund order 7." }],
    });
    expect(events[5]).toMatchObject({ callId: "r1", note: { refund: "rf-7" } });
    const replay = replayRun(events);
    expect(replay.result).toMatchObject({ status: "done", answer: "Order 7 is refunded.", steps: 3, agent: "billing" });
    expect(replay.context.handoffs?.shown?.messages).toEqual([
      { role: "system", content: "You are billing." },
      { role: "user", content: "Please refund order 7." },
    ]);
  });

  it("resumed as it is, gives its result again, and its next message goes to billing with what the log says it was shown", async () => {
    const made: string[] = [];
    const store = goldenStore();
    const result = await resumeAgent("v4-handoff", never, agents(made), { store });
    expect(result).toMatchObject({ status: "done", agent: "billing" });
    const billing = scriptedModel([final("You are welcome.")]);
    const next = await continueAgent("v4-handoff", "Thanks!", never, agents(made, billing), { store });
    expect(next).toMatchObject({ answer: "You are welcome.", agent: "billing" });
    // The filter given now is never called: billing is shown what the log holds, and what came after it.
    expect(billing.seen[0]?.slice(0, 2)).toEqual([
      { role: "system", content: "You are billing." },
      { role: "user", content: "Please refund order 7." },
    ]);
    expect(billing.seen[0]?.at(-1)).toEqual({ role: "user", content: "Thanks!" });
    expect(made).toEqual([]);
  });
});
