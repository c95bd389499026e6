import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, AgentCard } from "@a2a-js/sdk";
import {
  JsonRpcTransportHandler,
  type JsonRpcTransportHandler as Rpc,
  ServerCallContext,
  validateVersion,
} from "@a2a-js/sdk/server";
import type { Principal } from "@agentloop/core";
import { frontDoor, type ServeOptions } from "@agentloop/core/serve";
import { agentTasks } from "./agent-tasks.js";
import { keepingFailures } from "./task-failures.js";

/** The agent card's own words: the agent's name, what it does, and the URL its JSON-RPC endpoint is reached at. */
export interface A2ACard {
  readonly name: string;
  readonly description: string;
  /** Where clients send JSON-RPC requests (the handler's URL as the world sees it, e.g. `https://agent.example.com/a2a`). */
  readonly url: string;
}

/** What `a2aHandler` serves: an agent as every front door takes it, and its card. */
export type A2AServeOptions = ServeOptions & { readonly card: A2ACard };

type RpcAnswer = Awaited<ReturnType<Rpc["handle"]>>;

/**
 * A web-standard handler serving the agent over A2A (v1.0, the JSON-RPC binding, on the official
 * SDK's JSON-RPC transport): its agent card at `/.well-known/agent-card.json`, and A2A requests
 * POSTed anywhere else. A task is a run of `store` (task id = run id); a context is a conversation,
 * its tasks `<contextId>.1`, `<contextId>.2`, … each going on from the transcript of the one
 * before. A run that waits for a decision or an answer is `TASK_STATE_INPUT_REQUIRED`, the calls
 * and questions in its status message; a message on the task answers them and the run goes on.
 * `GetTask`, `ListTasks`, `SubscribeToTask` and `CancelTask` read the log, so a task outlives the
 * server's process. What a request does to a run is decided by `@agentloop/core/serve`, as on
 * every front door: the checks of `Host`, `Origin` and `authorize` come first, another tenant's
 * task is answered exactly as an unknown one, and a failure is told as "the agent failed
 * (<task id>)" unless `exposeErrors`.
 */
export function a2aHandler(options: A2AServeOptions): (request: Request) => Promise<Response> {
  const { card: words, ...served } = options;
  const serve = keepingFailures(served);
  const card = agentCardOf(words);
  return frontDoor(serve, (request, principal) => handle(serve, card, request, principal), refuse);
}

/** The agent card `a2aHandler` serves for `card`: JSON-RPC at its URL, streaming, text and JSON in, text out. */
export function agentCardOf(card: A2ACard): AgentCard {
  return AgentCard.fromJSON({
    name: card.name,
    description: card.description,
    version: "1.0.0",
    supportedInterfaces: [{ url: card.url, protocolBinding: "JSONRPC", protocolVersion: A2A_PROTOCOL_VERSION }],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: card.name, name: card.name, description: card.description, tags: ["agent"] }],
  });
}

async function handle(
  serve: ServeOptions,
  card: AgentCard,
  request: Request,
  principal: Principal | undefined,
): Promise<Response> {
  if (request.method === "GET" && new URL(request.url).pathname.endsWith(`/${AGENT_CARD_PATH}`)) {
    return Response.json(AgentCard.toJSON(card), { headers: { "cache-control": "no-cache" } });
  }
  if (request.method !== "POST") return refuse(405, "an A2A agent takes JSON-RPC requests by POST");
  const body = await request.text();
  const malformed = malformedRequest(body);
  if (malformed !== undefined) return Response.json({ jsonrpc: "2.0", id: idOf(body), error: malformed });
  const context = new ServerCallContext({ requestedVersion: request.headers.get("a2a-version") ?? undefined });
  const rpc = new JsonRpcTransportHandler(agentTasks(serve, principal, card));
  let answer: RpcAnswer;
  try {
    validateVersion(context.requestedVersion, card, "JSONRPC");
    answer = await rpc.handle(body, context);
  } catch (error) {
    answer = { jsonrpc: "2.0", id: idOf(body), error: JsonRpcTransportHandler.mapToJSONRPCError(error) };
  }
  if (!(Symbol.asyncIterator in answer)) return Response.json(answer);
  // A stream refused before its first event is answered as one JSON-RPC error, as the SDK's own server does.
  const first = await answer.next().catch((error: unknown) => ({
    error: { jsonrpc: "2.0", id: idOf(body), error: JsonRpcTransportHandler.mapToJSONRPCError(error) },
  }));
  if ("error" in first) return Response.json(first.error);
  return sseResponse(answer, first, idOf(body));
}

/** The stream's answers as SSE, one `data:` line each; an error mid-stream ends it as an `error` event. A client that goes away stops the stream, not the run. */
function sseResponse(
  stream: AsyncGenerator<{ jsonrpc: string }>,
  first: IteratorResult<{ jsonrpc: string }>,
  id: string | number | null,
): Response {
  const encoder = new TextEncoder();
  let pending: IteratorResult<{ jsonrpc: string }> | undefined = first;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = pending ?? (await stream.next());
        pending = undefined;
        if (next.done === true) controller.close();
        else controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
      } catch (error) {
        const answer = { jsonrpc: "2.0", id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) };
        controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify(answer)}\n\n`));
        controller.close();
      }
    },
    async cancel() {
      await stream.return(undefined);
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
  });
}

/**
 * What JSON-RPC 2.0 answers a body that is no request (pure): `-32700` when it is not JSON, `-32600`
 * when it is not one request object (`jsonrpc: "2.0"`, a method, an id that is a string, a number
 * or null). A batch is one such error: A2A sends one request per body.
 */
function malformedRequest(body: string): { readonly code: number; readonly message: string } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { code: -32700, message: "Parse error: the body is not JSON" };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { code: -32600, message: "Invalid Request: the body is not one JSON-RPC request object" };
  }
  const { jsonrpc, method, id } = parsed as Record<string, unknown>;
  const idOk = id === undefined || id === null || typeof id === "string" || typeof id === "number";
  if (jsonrpc !== "2.0" || typeof method !== "string" || method === "" || !idOk) {
    return { code: -32600, message: 'Invalid Request: it needs jsonrpc "2.0", a method and an id' };
  }
  return undefined;
}

function idOf(body: string): string | number | null {
  try {
    const { id } = JSON.parse(body) as { id?: unknown };
    return typeof id === "string" || typeof id === "number" ? id : null;
  } catch {
    return null;
  }
}

function refuse(status: number, message: string): Response {
  return Response.json({ error: message }, { status });
}
