import { Artifact, TaskState } from "@a2a-js/sdk";
import { AgentEvent, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import {
  asks,
  final,
  MemoryEventStore,
  replayRun,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { afterEach, describe, expect, it } from "vitest";
import { a2aAgentTool } from "../src/index.js";
import { type A2AServer, startA2AServer, statusOf, taskOf } from "./a2a-server.js";

const servers: A2AServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

function said(context: RequestContext): string {
  const part = context.userMessage.parts[0]?.content;
  return part?.$case === "text" ? part.value : "";
}

/** Completes the task with one text artifact. */
function complete(context: RequestContext, bus: ExecutionEventBus, text: string): void {
  const artifact = Artifact.fromJSON({ artifactId: "answer", parts: [{ text }] });
  bus.publish(
    AgentEvent.artifactUpdate({
      taskId: context.taskId,
      contextId: context.contextId,
      artifact,
      append: false,
      lastChunk: true,
      metadata: undefined,
    }),
  );
  bus.publish(
    AgentEvent.statusUpdate({
      taskId: context.taskId,
      contextId: context.contextId,
      status: statusOf(context, TaskState.TASK_STATE_COMPLETED),
      metadata: undefined,
    }),
  );
  bus.finished();
}

const refunds = async (context: RequestContext, bus: ExecutionEventBus) => {
  bus.publish(AgentEvent.task(taskOf(context, TaskState.TASK_STATE_WORKING)));
  await new Promise((resolve) => setTimeout(resolve, 50));
  complete(context, bus, `Refunded: ${said(context)}`);
};

describe("a2aAgentTool: a remote A2A agent as a tool (the SDK's own server on 127.0.0.1)", () => {
  it("sends the task once, logs the remote task's ids before it waits, and answers with the task's artifacts", async () => {
    const server = await startA2AServer(refunds);
    servers.push(server);
    const billing = a2aAgentTool({ url: server.url, name: "billing", pollMs: 10 });
    const model = scriptedModel([asks(toolCall("c1", "billing", { task: "order 7" })), final("Done.")]);
    const store = new MemoryEventStore();
    const result = await runAgent("Refund order 7.", model, new ToolRegistry([billing]), { store, runId: "r" });
    expect(result.status).toBe("done");
    expect(result.messages[3]).toMatchObject({ role: "tool", name: "billing", content: '"Refunded: order 7"' });
    expect(server.received).toHaveLength(1);
    const log = await store.read("r");
    const notes = log.filter((event) => event.type === "tool.noted");
    expect(notes.map((event) => (event.type === "tool.noted" ? Object.keys(event.note as object) : []))).toEqual([
      ["contextId"],
      ["taskId"],
    ]);
    // Both were logged before the call finished, and the task is the one the remote made for that context.
    const finishedAt = log.findIndex((event) => event.type === "tool.finished");
    expect(log.indexOf(notes[1] as (typeof log)[number])).toBeLessThan(finishedAt);
    expect(server.received[0]?.contextId).toBe(
      (notes[0]?.type === "tool.noted" && (notes[0].note as { contextId: string }).contextId) || "",
    );
    expect(replayRun(log).result?.status).toBe("done");
  });

  it("pauses the run with the remote's question, and sends the answer on the same task when resumed", async () => {
    const server = await startA2AServer(async (context, bus) => {
      if (context.task === undefined) {
        bus.publish(AgentEvent.task(taskOf(context, TaskState.TASK_STATE_INPUT_REQUIRED, "Which order?")));
        bus.finished();
        return;
      }
      bus.publish(AgentEvent.task({ ...context.task, status: statusOf(context, TaskState.TASK_STATE_WORKING) }));
      complete(context, bus, `Refunded order ${said(context)}`);
    });
    servers.push(server);
    const billing = a2aAgentTool({ url: server.url, name: "billing", pollMs: 10 });
    const registry = new ToolRegistry([billing]);
    const model = scriptedModel([asks(toolCall("c1", "billing", { task: "a refund" })), final("Done.")]);
    const store = new MemoryEventStore();
    const paused = await runAgent("Refund.", model, registry, { store, runId: "r" });
    expect(paused).toMatchObject({
      status: "awaiting_input",
      pendingQuestions: [{ id: "c1", question: "Which order?" }],
    });
    expect(server.received).toHaveLength(1);
    const done = await resumeAgent("r", model, registry, { store, answers: { c1: "7" } });
    expect(done.status).toBe("done");
    expect(String(done.messages[3]?.content)).toMatch(/^"Refunded order 7"/);
    // The answer went on the task the first message made, and the task was never sent again.
    expect(server.received).toHaveLength(2);
    expect(server.received[1]?.taskId).toBe(server.received[0]?.taskId);
    expect(
      server.received.map((message) => message.parts[0]?.content?.$case === "text" && message.parts[0].content.value),
    ).toEqual(["a refund", "7"]);
  });

  it("is an ERROR: observation when the remote task fails", async () => {
    const server = await startA2AServer(async (context, bus) => {
      bus.publish(AgentEvent.task(taskOf(context, TaskState.TASK_STATE_FAILED, "No such order.")));
      bus.finished();
    });
    servers.push(server);
    const billing = a2aAgentTool({ url: server.url, name: "billing", pollMs: 10 });
    const model = scriptedModel([asks(toolCall("c1", "billing", { task: "order 9" })), final("Sorry.")]);
    const result = await runAgent("Refund order 9.", model, new ToolRegistry([billing]));
    expect(result.messages[3]?.content).toMatch(
      /^ERROR: .*the remote agent's task ended TASK_STATE_FAILED: No such order\./,
    );
  });
});
