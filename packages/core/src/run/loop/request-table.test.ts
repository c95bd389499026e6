import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import type { AgentRequest } from "../../data/index.js";
import { agentMachine } from "../../decide/index.js";
import { asks, final, toolCall } from "../../testing/index.js";
import { ToolRegistry } from "../../tools/index.js";
import { resolveSettings } from "../options/index.js";
import { drivenMachine } from "./driven-machine.js";
import { REQUEST_KINDS, REQUEST_TABLE, requestKey } from "./request-table.js";

const at = { steps: 2, place: (callId: string) => `2.0 ${callId}` };
const call = { id: "c1", name: "pay", args: {} };

describe("the request table", () => {
  it("gives every kind one of three durable forms", () => {
    const forms = Object.fromEntries(REQUEST_KINDS.map((kind) => [kind, REQUEST_TABLE[kind].form]));
    expect(forms).toEqual({
      callModel: "once",
      compactContext: "once",
      runTool: "once",
      checkOutput: "once",
      recallMemory: "once",
      checkGuardrail: "once",
      requestDecision: "promise",
      resumeChild: "promise",
      waitRetry: "sleep",
      prepareStep: "once",
      handOff: "once",
      askUser: "promise",
    });
  });

  it("names each request by the step and the call's place in its reply", () => {
    const requests: [AgentRequest, string][] = [
      [{ type: "callModel", step: 3, transcript: { items: [], length: 0 } as never, specs: [] }, "model 3"],
      [{ type: "compactContext", step: 3, strategy: "trim", keptFrom: 1, prompt: [] }, "compaction 3"],
      [{ type: "runTool", call }, "tool 2.0 c1"],
      [{ type: "requestDecision", call }, "decision 2.0 c1"],
      [{ type: "checkOutput", text: "{}" }, "output 2"],
      [
        { type: "checkGuardrail", stage: "output", index: 1, name: "g", text: "", transcript: [] as never },
        "guardrail 2 output.1",
      ],
      [{ type: "waitRetry", delayMs: 5, jitter: false }, "retry wait 2"],
      [{ type: "prepareStep", step: 3, transcript: { items: [], length: 0 } as never, tokens: 0 }, "prepare 3"],
      [{ type: "askUser", call, question: "Which city?" }, "question 2.0 c1"],
      [{ type: "handOff", call, from: "triage", to: "billing" }, "handoff 2.0 c1"],
      // A turn recalls once, for its message: two turns that made no model call between them still differ.
      [{ type: "recallMemory", scope: { resource: "u" }, query: "hi", limit: 5, message: 3 }, "recall 3"],
      // A call paused in its child again waits anew: the key names what waits below it.
      [
        { type: "resumeChild", call, pending: [{ ...call, id: "c1/e1" }], questions: [{ id: "c1/q1", question: "?" }] },
        "child 2.0 c1 c1/e1 c1/q1",
      ],
    ];
    for (const [request, key] of requests) expect(requestKey(request, at)).toBe(key);
  });

  it("is what the driver hears: every request the machine emits is kept for the loop", () => {
    const registry = new ToolRegistry();
    registry.register("pay", "Pays.", { type: "object" }, () => "paid", { needsApproval: true });
    const model = () => asks(toolCall("c1", "pay"));
    const settings = resolveSettings("t", model, registry, {});
    const actor = createActor(agentMachine, { input: { settings } });
    const driven = drivenMachine(actor);
    actor.start();
    expect(driven.takeRequests().map((request) => request.type)).toEqual(["callModel"]);
    driven.send({ type: "model.replied", reply: asks(toolCall("c1", "pay")) });
    expect(driven.takeRequests().map((request) => request.type)).toEqual(["requestDecision"]);
    driven.send({ type: "approval.decided", callId: "c1", approved: false });
    driven.send({ type: "tool.finished", callId: "c1", content: "denied" });
    expect(driven.takeRequests().map((request) => request.type)).toEqual(["callModel"]);
    driven.send({ type: "model.replied", reply: final("ok") });
    expect(actor.getSnapshot().status).toBe("done");
    driven.stop();
  });
});
