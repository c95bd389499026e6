import assert from "node:assert/strict";
import { createServer } from "node:http";
import { AGENT_CARD_PATH, AgentCard, Artifact, TaskState, TaskStatus } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
} from "@a2a-js/sdk/server";
import { a2aAgentTool } from "@agentloop/a2a";
import { asks, final, MemoryEventStore, runAgent, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";

// A remote billing agent, served by the A2A SDK on 127.0.0.1: it refunds the order it is given.
const billing: AgentExecutor = {
  execute: async (context, bus) => {
    const part = context.userMessage.parts[0]?.content;
    const asked = part?.$case === "text" ? part.value : "";
    const ids = { taskId: context.taskId, contextId: context.contextId };
    bus.publish(
      AgentEvent.task({
        id: context.taskId,
        contextId: context.contextId,
        status: TaskStatus.fromJSON({ state: "TASK_STATE_WORKING" }),
        artifacts: [],
        history: [context.userMessage],
        metadata: undefined,
      }),
    );
    const artifact = Artifact.fromJSON({ artifactId: "refund", parts: [{ text: `Refunded ${asked}.` }] });
    bus.publish(AgentEvent.artifactUpdate({ ...ids, artifact, append: false, lastChunk: true, metadata: undefined }));
    const done = TaskStatus.fromJSON({ state: TaskState[TaskState.TASK_STATE_COMPLETED] });
    bus.publish(AgentEvent.statusUpdate({ ...ids, status: done, metadata: undefined }));
    bus.finished();
  },
  cancelTask: async () => {},
};
let url = "";
const card = () =>
  AgentCard.fromJSON({
    name: "billing",
    description: "Refunds orders.",
    version: "1.0.0",
    supportedInterfaces: [{ url: `${url}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: {},
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
  });
let rpc: JsonRpcTransportHandler | undefined;
const server = createServer((request, response) => {
  let body = "";
  request.on("data", (chunk: Buffer) => {
    body += chunk.toString();
  });
  request.on("end", async () => {
    response.setHeader("content-type", "application/json");
    if (request.method === "GET" && request.url === `/${AGENT_CARD_PATH}`) {
      response.end(JSON.stringify(AgentCard.toJSON(card())));
      return;
    }
    response.end(JSON.stringify(await rpc?.handle(JSON.parse(body), new ServerCallContext())));
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const address = server.address();
url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
rpc = new JsonRpcTransportHandler(new DefaultRequestHandler(card(), new InMemoryTaskStore(), billing));

// Our agent calls it as a tool; the remote task's ids are in the run's log before the call waits.
const registry = new ToolRegistry([a2aAgentTool({ url, name: "billing", description: "Refunds orders.", pollMs: 20 })]);
const model = scriptedModel([asks(toolCall("b1", "billing", { task: "order 7" })), final("Order 7 is refunded.")]);
const store = new MemoryEventStore();
const result = await runAgent("Please refund order 7.", model, registry, { store, runId: "support-1" });
assert.equal(result.status, "done");
assert.equal(result.messages[3]?.content, '"Refunded order 7."');
const noted = (await store.read("support-1")).filter((event) => event.type === "tool.noted");
assert.deepEqual(
  noted.map((event) => (event.type === "tool.noted" ? Object.keys(event.note as object) : [])),
  [["contextId"], ["taskId"]],
);
console.log(result.answer);
server.close();
