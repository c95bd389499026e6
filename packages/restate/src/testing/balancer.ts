import { connect, createServer, type Server, type Socket } from "node:net";

/** A TCP load balancer on 127.0.0.1: one address for several service processes. */
export interface Balancer {
  readonly port: number;
  /** Connections handed to each backend port so far. */
  readonly connections: ReadonlyMap<number, number>;
  close(): Promise<void>;
}

/**
 * Hands each new connection to the next backend in turn, skipping one that refuses it (a killed
 * process), as a load balancer in front of service replicas would. Restate keeps a pool of HTTP/2
 * connections to a deployment, so its invocations spread over the backends.
 */
export function startBalancer(backends: readonly number[]): Promise<Balancer> {
  let next = 0;
  const connections = new Map(backends.map((port) => [port, 0]));
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.once("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    const attempt = (tried: number) => {
      if (tried >= backends.length) {
        client.destroy();
        return;
      }
      const port = backends[next++ % backends.length] as number;
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
        connections.set(port, (connections.get(port) ?? 0) + 1);
        client.pipe(upstream);
        upstream.pipe(client);
        client.once("close", () => upstream.destroy());
      });
    };
    attempt(0);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      resolve({
        port,
        connections,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
