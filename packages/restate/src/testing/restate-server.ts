import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@agentloop/store-testkit/servers";
import { waitUntil } from "./wait-until.js";

/** A Restate server started from `node_modules` for a test file: its own temp dir, 127.0.0.1 only. */
export interface RestateServer {
  readonly admin: string;
  readonly ingress: string;
  /** Registers the service endpoint at `uri` (forcing over an earlier registration) and returns the services it offers. */
  register(uri: string): Promise<string[]>;
  /** The server's own log, for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

/** Options of the test server. */
export interface ServerOptions {
  /** Caps the HTTP/2 streams per connection to a service endpoint (Restate opens more connections past it). */
  readonly streamsPerConnection?: number;
  /** The server binary (default: the one `@restatedev/restate-server` installed). */
  readonly binary?: string;
}

const require = createRequire(import.meta.url);

/** The server binary that `@restatedev/restate-server` installed for this platform; throws saying what to install. */
export function restateServerBinary(): string {
  const platform = `@restatedev/restate-server-${process.platform}-${process.arch}`;
  try {
    const from = { paths: [require.resolve("@restatedev/restate-server/package.json")] };
    return require.resolve(`${platform}/bin/restate-server`, from);
  } catch {
    throw new Error(`no Restate server binary is installed: add @restatedev/restate-server (it brings ${platform})`);
  }
}

/**
 * Starts `restate-server` with telemetry off, listening on free ports of 127.0.0.1 only (see
 * `freePort`), with a small memory budget and 2 partitions, its data in a fresh temp dir; resolves
 * once the admin API and the ingress answer their health checks. Should a port be taken all the
 * same before the server binds it, the server is started again on new ports (3 tries in all).
 */
export async function startRestateServer(options: ServerOptions = {}): Promise<RestateServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === 3) throw error;
    }
  }
}

/** The server could not bind one of its ports: it is worth starting again on others. */
class PortTaken extends Error {}

async function startOnce(options: ServerOptions): Promise<RestateServer> {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-restate-"));
  const [admin, ingress, fabric] = [await freePort(), await freePort(), await freePort()];
  const config = join(dir, "config.toml");
  writeFileSync(config, configFile(admin, ingress, options));
  const logPath = join(dir, "server.log");
  const out = openSync(logPath, "a");
  const args = ["--config-file", config, "--base-dir", join(dir, "data"), "--listen-mode", "tcp"];
  const binary = options.binary ?? restateServerBinary();
  const child = spawn(binary, [...args, "--bind-address", `127.0.0.1:${fabric}`, "--no-logo"], {
    stdio: ["ignore", out, out],
    env: { ...process.env, RESTATE_DISABLE_TELEMETRY: "true" },
  });
  let failure: string | null = null;
  child.once("error", (error) => {
    failure = `restate-server could not be started (${binary}): ${error.message}`;
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const log = () => readFileSync(logPath, "utf8");
  const adminUrl = `http://127.0.0.1:${admin}`;
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  const ports = `admin 127.0.0.1:${admin}, ingress 127.0.0.1:${ingress}, fabric 127.0.0.1:${fabric}`;
  await waitUntil(async () => (await isUp(`${adminUrl}/health`)) && (await isUp(`${ingressUrl}/restate/health`)), {
    what: `the Restate server (${ports}) to answer its health checks`,
    timeoutMs: 30_000,
    failIf: () =>
      failure ?? (child.exitCode === null ? null : `restate-server exited with ${child.exitCode}:\n${log()}`),
  }).catch(async (error: unknown) => {
    await stop(child, exited, dir);
    const message = error instanceof Error ? error.message : String(error);
    throw /address in use|os error 98/i.test(message) ? new PortTaken(message) : error;
  });
  return {
    admin: adminUrl,
    ingress: ingressUrl,
    register: (uri) => register(adminUrl, uri),
    log,
    stop: () => stop(child, exited, dir),
  };
}

function configFile(admin: number, ingress: number, { streamsPerConnection }: ServerOptions): string {
  return [
    "default-num-partitions = 2",
    'rocksdb-total-memory-size = "256 MiB"',
    "disable-telemetry = true",
    "[admin]",
    `bind-address = "127.0.0.1:${admin}"`,
    "disable-web-ui = true",
    "[admin.query-engine]",
    'memory-size = "64 MiB"',
    "[ingress]",
    `bind-address = "127.0.0.1:${ingress}"`,
    ...(streamsPerConnection === undefined
      ? []
      : ["[worker.invoker]", `http2-streams-per-connection-limit = ${streamsPerConnection}`]),
    "",
  ].join("\n");
}

async function isUp(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

async function register(admin: string, uri: string): Promise<string[]> {
  const response = await fetch(`${admin}/deployments`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ uri, force: true }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`registering ${uri} failed with ${response.status}: ${text}`);
  return (JSON.parse(text) as { services: { name: string }[] }).services.map((service) => service.name);
}

async function stop(child: ChildProcess, exited: Promise<void>, dir: string): Promise<void> {
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(killer);
  }
  rmSync(dir, { recursive: true, force: true });
}
