import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentResult, replayRun } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { parseEventLog, type StoredEvent } from "@agentloop/core/store";
import * as clients from "@restatedev/restate-sdk-clients";
import { expect } from "vitest";
import type { AgentHandlers } from "../../src/index.js";
import { freePort, type RestateServer, type ServerOptions, startRestateServer } from "../../src/testing/index.js";
import { Ledger } from "./ledger.js";
import { type ServiceProcess, startService } from "./service-process.js";

/** A test file's Restate server, a temp dir with the ledger and the mirrored JSONL logs, and a client. */
export interface Harness {
  readonly server: RestateServer;
  readonly ledger: Ledger;
  readonly store: JsonlEventStore;
  /** The environment of a service process: where its ledger and store are. */
  readonly env: Record<string, string>;
  run(runId: string): clients.IngressWorkflowClient<AgentHandlers>;
  /** A run of the service's workflow named `workflow` (`agent` is `run`'s). */
  client(workflow: string, runId: string): clients.IngressWorkflowClient<AgentHandlers>;
  service(port: number, env?: Record<string, string>): Promise<ServiceProcess>;
  close(): Promise<void>;
}

/** Starts the server and prepares the temp dir; services are started by the tests. */
export async function openHarness(options: ServerOptions = {}): Promise<Harness> {
  const server = await startRestateServer(options);
  const dir = mkdtempSync(join(tmpdir(), "agentloop-restate-test-"));
  const ledger = new Ledger(join(dir, "ledger.jsonl"));
  const storeDir = join(dir, "runs");
  const store = new JsonlEventStore(storeDir);
  const env = { LEDGER: ledger.path, STORE_DIR: storeDir };
  const ingress = clients.connect({ url: server.ingress });
  const services = new Set<ServiceProcess>();
  return {
    server,
    ledger,
    store,
    env,
    run: (runId) => ingress.workflowClient<AgentHandlers>({ name: "agent" }, runId),
    client: (workflow, runId) => ingress.workflowClient<AgentHandlers>({ name: workflow }, runId),
    service: async (port, extra = {}) => {
      const service = await startService(port, { ...env, ...extra });
      services.add(service);
      return service;
    },
    close: async () => {
      await Promise.all([...services].map((service) => service.kill()));
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts a service on a free port and registers it; returns the port (the service keeps running). */
export async function registerService(harness: Harness, extra: Record<string, string> = {}): Promise<number> {
  const port = await freePort();
  await harness.service(port, extra);
  await harness.server.register(`http://127.0.0.1:${port}`);
  return port;
}

/** The task of a fixture run: its ledger reference and its script. */
export function task(ref: string, script: "pay" | "mail" | "ask" | "delegate"): string {
  return JSON.stringify({ ref, script });
}

/** The mirrored log and the workflow's own log agree, and both replay to `result`. */
export async function expectLogReplays(harness: Harness, runId: string, result: AgentResult): Promise<StoredEvent[]> {
  const mirrored = await harness.store.read(runId);
  const kept = parseEventLog(runId, await harness.run(runId).events());
  expect(kept).toEqual(mirrored);
  const replayed = replayRun(mirrored, { runId }).result;
  const { runId: _id, ...rest } = result;
  expect(replayed).toEqual(rest);
  return mirrored;
}

/** How many events of `type` a log holds (for one call, when `callId` is given). */
export function countEvents(log: readonly StoredEvent[], type: StoredEvent["type"], callId?: string): number {
  return log.filter(
    (event) => event.type === type && (callId === undefined || ("callId" in event && event.callId === callId)),
  ).length;
}
