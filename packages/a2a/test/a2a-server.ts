import { createServer, type Server } from "node:http";
import { AGENT_CARD_PATH, AgentCard, type Message, type Task, TaskState, TaskStatus } from "@a2a-js/sdk";
import {
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  type RequestContext,
  ServerCallContext,
} from "@a2a-js/sdk/server";

/** The SDK's own server on 127.0.0.1: `DefaultRequestHandler` with the test's executor, its JSON-RPC binding on node:http. */
export interface A2AServer {
  readonly url: string;
  /** Every message the executor was given, as the SDK parsed it. */
  readonly received: Message[];
  close(): Promise<void>;
}

export async function startA2AServer(
  execute: (context: RequestContext, bus: ExecutionEventBus, received: readonly Message[]) => Promise<void>,
): Promise<A2AServer> {
  const received: Message[] = [];
  const executor: AgentExecutor = {
    execute: async (context, bus) => {
      received.push(context.userMessage);
      await execute(context, bus, received);
    },
    cancelTask: async () => {},
  };
  let url = "";
  let handler: DefaultRequestHandler | undefined;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      if (request.method === "GET" && request.url === `/${AGENT_CARD_PATH}`) {
        response.setHeader("content-type", "application/json");
        response.end(JSON.stringify(AgentCard.toJSON(cardOf(url))));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      const rpc = new JsonRpcTransportHandler(handler as DefaultRequestHandler);
      const answer = await rpc.handle(body, new ServerCallContext());
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  handler = new DefaultRequestHandler(cardOf(url), new InMemoryTaskStore(), executor);
  return {
    url,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function cardOf(url: string): AgentCard {
  return AgentCard.fromJSON({
    name: "billing",
    description: "Refunds orders.",
    version: "1.0.0",
    supportedInterfaces: [{ url: `${url}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "refund", name: "Refund", description: "Refunds an order.", tags: ["billing"] }],
  });
}

/** A task as the executor publishes it first: its id and context from the request, in `state`. */
export function taskOf(context: RequestContext, state: TaskState, text?: string): Task {
  return {
    id: context.taskId,
    contextId: context.contextId,
    status: statusOf(context, state, text),
    artifacts: [],
    history: [context.userMessage],
    metadata: undefined,
  };
}

/** A status in `state`, with an agent message of `text` when given. */
export function statusOf(context: RequestContext, state: TaskState, text?: string): TaskStatus {
  return TaskStatus.fromJSON({
    state: TaskState[state],
    ...(text === undefined
      ? {}
      : {
          message: {
            messageId: globalThis.crypto.randomUUID(),
            contextId: context.contextId,
            taskId: context.taskId,
            role: "ROLE_AGENT",
            parts: [{ text }],
          },
        }),
  });
}
