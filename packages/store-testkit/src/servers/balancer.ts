import {
  request as httpRequest,
  createServer as httpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { connect, createServer, type Server, type Socket } from "node:net";

/** A load balancer on 127.0.0.1: one address for several service processes. */
export interface Balancer {
  readonly port: number;
  /** Connections (per request: requests) handed to each backend port so far. */
  readonly connections: ReadonlyMap<number, number>;
  /** Per request: each request handed on, in the order they were sent on, with the backend port that took it. */
  readonly requests: readonly HandedRequest[];
  /** The backend port the next connection or request goes to (unless it refuses). */
  peek(): number;
  close(): Promise<void>;
}

/** A request a balancer handed to a backend. */
export interface HandedRequest {
  readonly port: number;
  readonly method: string;
  readonly path: string;
}

/** How a balancer spreads its traffic: each new TCP connection (default), or each HTTP request, to the next backend. */
export interface BalancerSettings {
  readonly per?: "connection" | "request";
}

/**
 * Hands each new connection — or, `per: "request"`, each HTTP request (as a round-robin HTTP proxy
 * does, whatever connection it came on) — to the next backend in turn, skipping one that refuses it
 * (a killed process), as a load balancer in front of service replicas would. Responses are streamed
 * back as they come (server-sent events included). Restate keeps a pool of HTTP/2 connections to a
 * deployment, so its invocations spread over the backends per connection.
 */
export function startBalancer(backends: readonly number[], settings: BalancerSettings = {}): Promise<Balancer> {
  const turn = rotation(backends);
  const connections = new Map(backends.map((port) => [port, 0]));
  const requests: HandedRequest[] = [];
  const sockets = new Set<Socket>();
  const count = (port: number) => connections.set(port, (connections.get(port) ?? 0) + 1);
  const server: Server =
    settings.per === "request"
      ? httpServer((incoming, outgoing) =>
          proxy(incoming, outgoing, turn, backends.length, (port) => {
            count(port);
            const handed = { port, method: incoming.method ?? "GET", path: incoming.url ?? "/" };
            requests.push(handed);
            // A backend that refused it did not take it.
            return () => void requests.splice(requests.indexOf(handed), 1);
          }),
        )
      : createServer((client) => pipeConnection(client, turn, backends.length, sockets, count));
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      resolve({
        port,
        connections,
        requests,
        peek: turn.peek,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

function rotation(backends: readonly number[]): (() => number) & { peek(): number } {
  let next = 0;
  return Object.assign(() => backends[next++ % backends.length] as number, {
    peek: () => backends[next % backends.length] as number,
  });
}

function pipeConnection(
  client: Socket,
  turn: () => number,
  size: number,
  sockets: Set<Socket>,
  count: (port: number) => void,
): void {
  client.on("error", () => client.destroy());
  const attempt = (tried: number) => {
    if (tried >= size) {
      client.destroy();
      return;
    }
    const port = turn();
    const upstream = connect(port, "127.0.0.1");
    sockets.add(upstream);
    upstream.once("close", () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.once("error", () => {
      if (upstream.bytesWritten === 0 && upstream.bytesRead === 0 && !client.destroyed) attempt(tried + 1);
    });
    upstream.once("connect", () => {
      count(port);
      client.pipe(upstream);
      upstream.pipe(client);
      client.once("close", () => upstream.destroy());
    });
  };
  attempt(0);
}

/** Forwards one HTTP request to the next backend that takes it, its body read first so that a refusing backend can be skipped. */
async function proxy(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  turn: () => number,
  size: number,
  handed: (port: number) => () => void,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const attempt = (tried: number) => {
    if (tried >= size) {
      outgoing.writeHead(502).end("no backend took the request");
      return;
    }
    const port = turn();
    const refused = handed(port);
    const upstream = httpRequest(
      { host: "127.0.0.1", port, method: incoming.method, path: incoming.url, headers: incoming.headers, agent: false },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
        // A client that leaves mid-answer ends the backend's answer too, as a proxy does.
        outgoing.once("close", () => answer.destroy());
      },
    );
    upstream.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "ECONNREFUSED") return void outgoing.destroy();
      refused();
      attempt(tried + 1);
    });
    upstream.end(body);
  };
  attempt(0);
}
