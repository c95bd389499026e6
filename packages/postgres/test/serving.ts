import { type ChildProcess, fork } from "node:child_process";
import { join } from "node:path";
import { type Balancer, startBalancer } from "@agentloop/store-testkit/servers";
import { POSTGRES_URL } from "./schemas.js";

// Two server processes of one agent on one Postgres schema behind a round-robin HTTP balancer, as a
// served agent runs in production. Each child (test/fixtures/serve-child.mjs) loads the BUILT packages.

const CHILD = join(import.meta.dirname, "fixtures", "serve-child.mjs");

/** What a server process tells its parent. */
export interface Told {
  readonly port?: number;
  readonly started?: string;
  readonly sent?: string;
  readonly watching?: true;
}

/** One server process: its port, what it told so far, and how to wait for what it tells next. */
export interface ServerProcess {
  readonly name: string;
  readonly port: number;
  readonly told: readonly Told[];
  /** Resolves with the first thing told (from now on, or already told when `past`) that `matches`. */
  when(matches: (told: Told) => boolean, past?: boolean): Promise<Told>;
  /** Lets its slow tool's call for `key` finish. */
  release(key: string): void;
}

/** Two server processes behind a balancer that hands each request to the next one in turn. */
export interface TwoServers {
  readonly a: ServerProcess;
  readonly b: ServerProcess;
  readonly balancer: Balancer;
  /** The balancer's address for `path`. */
  url(path: string): string;
  /** Makes the balancer's next request go to `server`: requests it a page of nothing while it would not. */
  steer(server: ServerProcess): Promise<void>;
  /** The processes that took the requests so far whose path starts with `path`, in order ("A", "B"). */
  takers(path: string, method?: string): string[];
  close(): Promise<void>;
}

/** Starts two processes serving `door` on `schema` of the project's server, and a balancer before them. */
export async function twoServers(door: "chat" | "ag-ui" | "mcp", schema: string): Promise<TwoServers> {
  const children: ChildProcess[] = [];
  const start = (name: string) => {
    const child = fork(CHILD, [], {
      env: { ...process.env, SERVE_DOOR: door, SERVE_NAME: name, SERVE_SCHEMA: schema, POSTGRES_URL },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    children.push(child);
    return serverProcess(name, child);
  };
  const [a, b] = await Promise.all([start("A"), start("B")]);
  const balancer = await startBalancer([a.port, b.port], { per: "request" });
  const byPort = new Map([
    [a.port, a],
    [b.port, b],
  ]);
  const url = (path: string) => `http://127.0.0.1:${balancer.port}${path}`;
  return {
    a,
    b,
    balancer,
    url,
    steer: async (server) => {
      while (balancer.peek() !== server.port) await (await fetch(url("/nothing"))).arrayBuffer();
    },
    takers: (path, method) =>
      balancer.requests
        .filter((request) => request.path.startsWith(path) && (method === undefined || request.method === method))
        .map((request) => byPort.get(request.port)?.name ?? "?"),
    close: async () => {
      await balancer.close();
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once("exit", () => resolve());
              child.disconnect();
            }),
        ),
      );
    },
  };
}

async function serverProcess(name: string, child: ChildProcess): Promise<ServerProcess> {
  const told: Told[] = [];
  const waiting = new Set<{ matches: (told: Told) => boolean; resolve: (told: Told) => void }>();
  child.on("message", (message: Told) => {
    told.push(message);
    for (const waiter of waiting) {
      if (!waiter.matches(message)) continue;
      waiting.delete(waiter);
      waiter.resolve(message);
    }
  });
  const when = (matches: (told: Told) => boolean, past = false) => {
    const found = past ? told.find(matches) : undefined;
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<Told>((resolve, reject) => {
      waiting.add({ matches, resolve });
      child.once("exit", (code) =>
        reject(new Error(`server ${name} exited (${code}) before it told what was waited for`)),
      );
    });
  };
  const { port } = await when((message) => message.port !== undefined, true);
  return {
    name,
    port: port as number,
    told,
    when,
    release: (key) => child.send({ release: key }),
  };
}
