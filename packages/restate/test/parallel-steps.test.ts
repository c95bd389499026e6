// These internals are imported without the package index, which would bring the polyfill first.
import "../src/polyfill.js";
import {
  type AgentResult,
  type EffectEvent,
  type EffectRequest,
  type EventStore,
  type StoredEvent,
  type ToolCall,
  ToolRegistry,
  type Transcript,
} from "@agentloop/core";
import { type WorkflowContext, workflow } from "@restatedev/restate-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyedRequest, RunMachine } from "../src/core-port.js";
import { driveRun } from "../src/drive-run.js";
import type { AgentWorkflow } from "../src/index.js";
import { RunLog } from "../src/run-log.js";
import { type InProcessHarness, openInProcess } from "./support/in-process-harness.js";

// The driver takes however many requests the machine has outstanding at once (the machine of
// today asks for one tool at a time): here a stand-in machine asks for two tools together, the
// second finishing first. The events reach the log in the order they finished; then a model call
// fails once, so a new execution replays the journal and must take them in the same order again.

let fastDone = () => {};
const fastDid = new Promise<void>((resolve) => {
  fastDone = resolve;
});
const runs: string[] = [];
const registry = new ToolRegistry();
registry.register(
  "slow",
  "Finishes after fast.",
  { type: "object" },
  async () => {
    runs.push("slow");
    await fastDid;
    return "slow";
  },
  { idempotent: true },
);
registry.register(
  "fast",
  "Finishes at once.",
  { type: "object" },
  () => {
    runs.push("fast");
    fastDone();
    return "fast";
  },
  { idempotent: true },
);

let modelCalls = 0;
const model = () => {
  modelCalls++;
  if (modelCalls === 1) throw new Error("the provider is busy");
  return { content: "both done", toolCalls: [] };
};

/** Asks for both tools at once; once both are answered, for the model; its reply ends the run. */
function standInMachine(): RunMachine & { readonly seen: EffectEvent[] } {
  const calls: ToolCall[] = [
    { id: "s", name: "slow", args: {} },
    { id: "f", name: "fast", args: {} },
  ];
  const transcript = { items: [], length: 0, chars: 0 } as unknown as Transcript;
  let requests: KeyedRequest[] = calls.map((call, index) => ({
    request: { type: "runTool", call } satisfies EffectRequest,
    key: `tool 1.${index} ${call.id}`,
  }));
  const seen: EffectEvent[] = [];
  let result: AgentResult | null = null;
  return {
    seen,
    takeRequests: () => requests.splice(0),
    send: (event) => {
      seen.push(event);
      if (seen.filter((each) => each.type === "tool.finished").length === 2 && event.type === "tool.finished") {
        requests = [{ request: { type: "callModel", transcript, specs: [], step: 2 }, key: "model 2" }];
      }
      if (event.type === "model.replied") {
        result = { status: "done", answer: event.reply.content, steps: 2, tokens: 0, messages: [] };
      }
    },
    result: () => result,
    position: () => ({
      state: "stand-in",
      steps: 1,
      tokens: 0,
      waitsForDecision: false,
      awaitingDecision: [],
      decisionKeys: {},
    }),
    stop: () => {},
  };
}

// Holds what is appended as it is: the stand-in's log has no run.started, which core's stores require.
const appended: StoredEvent[] = [];
const store: EventStore = {
  append: async (_runId, event) => {
    appended.push(event);
  },
  read: async () => [...appended],
  list: async () => [],
};
const orders: string[][] = [];
const parallel = workflow({
  name: "parallel",
  handlers: {
    run: async (ctx: WorkflowContext): Promise<AgentResult> => {
      const machine = standInMachine();
      const log = new RunLog(ctx, store);
      const signal = new AbortController().signal;
      const result = await driveRun(
        ctx,
        machine,
        { model, registry, signal, modelRetry: { initialRetryInterval: 10 } },
        log,
      );
      orders.push(machine.seen.map((event) => ("callId" in event ? event.callId : event.type)));
      return result;
    },
  },
}) as unknown as AgentWorkflow;

describe("several requests outstanding at once", () => {
  let restate: InProcessHarness;

  beforeAll(async () => {
    restate = await openInProcess([parallel]);
  }, 60_000);

  afterAll(async () => {
    await restate?.close();
  });

  it("are all started, answered in the order they finish, and replayed in that order by a new execution", async () => {
    const run = restate.run("parallel", "both-1");
    await run.workflowSubmit({ task: "both" });
    expect(await run.workflowAttach()).toMatchObject({ status: "done", answer: "both done" });

    expect(modelCalls).toBe(2);
    expect(runs.sort()).toEqual(["fast", "slow"]);
    expect(orders).toEqual([["f", "s", "model.replied"]]);
    expect(appended.map((event) => `${event.type}${"callId" in event ? ` ${event.callId}` : ""}`)).toEqual([
      "tool.started f",
      "tool.finished f",
      "tool.started s",
      "tool.finished s",
      "model.replied",
    ]);
  });
});
