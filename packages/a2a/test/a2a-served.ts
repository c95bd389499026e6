import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { Message, SendMessageRequest } from "@a2a-js/sdk";
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";

/** A web-standard handler behind `node:http` on 127.0.0.1; the handler is made once the URL is known (the card names it). */
export async function serveOnLoopback(
  make: (url: string) => (request: Request) => Promise<Response>,
): Promise<{ url: string; close: () => Promise<void> }> {
  let handler: ((request: Request) => Promise<Response>) | undefined;
  const server = createServer((req, res) => {
    void bridge(handler as (request: Request) => Promise<Response>, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  handler = make(url);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function bridge(
  handler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(key, value);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const response = await handler(
    new Request(`http://127.0.0.1${req.url ?? "/"}`, {
      method: req.method ?? "GET",
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null,
      duplex: "half",
    } as RequestInit),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) res.end();
  else Readable.fromWeb(response.body as never).pipe(res);
}

/** The A2A SDK's own client for the agent at `url`, from its card; `headers` go with every request. */
export function clientOf(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [key, value] of Object.entries(headers)) merged.set(key, value);
    return fetch(input, { ...init, headers: merged });
  };
  return new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  }).createFromUrl(url);
}

/** A user message of text, as the SDK builds it, on a task or in a context when named. */
export function userText(text: string, ids: { taskId?: string; contextId?: string } = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: Message.toJSON(
      Message.fromJSON({
        messageId: globalThis.crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ text }],
        ...(ids.taskId === undefined ? {} : { taskId: ids.taskId }),
        ...(ids.contextId === undefined ? {} : { contextId: ids.contextId }),
      }),
    ),
  });
}

/** A raw HTTP request with exactly these headers (fetch would not send a foreign Host): its status and body. */
export function rawRequest(url: string, method: string, headers: Readonly<Record<string, string>>, body?: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = "";
      res.on("data", (chunk) => {
        text += String(chunk);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
