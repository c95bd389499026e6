import { type EventStore, MemoryEventStore } from "@agentloop/core";
import type { RunSummary, StoredEvent } from "@agentloop/core/store";
import * as clients from "@restatedev/restate-sdk-clients";
import type { AgentHandlers, AgentWorkflow } from "../../src/index.js";
import { type RestateServer, startRestateServer } from "../../src/testing/index.js";
import { type InProcessService, serveInProcess } from "./in-process.js";

/** A Restate server with workflows served from the test's own process, registered once. */
export interface InProcessHarness {
  readonly server: RestateServer;
  readonly service: InProcessService;
  run(workflow: string, runId: string): clients.IngressWorkflowClient<AgentHandlers>;
  close(): Promise<void>;
}

/** Starts a server, serves `workflows` (each with its own name) from this process and registers them. */
export async function openInProcess(workflows: readonly AgentWorkflow[]): Promise<InProcessHarness> {
  const server = await startRestateServer();
  const service = await serveInProcess(workflows);
  await server.register(service.uri);
  const ingress = clients.connect({ url: server.ingress });
  return {
    server,
    service,
    run: (workflow, runId) => ingress.workflowClient<AgentHandlers>({ name: workflow }, runId),
    close: async () => {
      await server.stop();
      await service.close();
    },
  };
}

/** A memory store that counts its appends and reads by run. */
export class CountingStore implements EventStore {
  readonly #store = new MemoryEventStore();
  readonly appends = new Map<string, number>();
  readonly reads = new Map<string, number>();

  async append(runId: string, event: StoredEvent): Promise<void> {
    await this.#store.append(runId, event);
    this.appends.set(runId, (this.appends.get(runId) ?? 0) + 1);
  }

  read(runId: string): Promise<StoredEvent[]> {
    this.reads.set(runId, (this.reads.get(runId) ?? 0) + 1);
    return this.#store.read(runId);
  }

  list(): Promise<RunSummary[]> {
    return this.#store.list();
  }
}

/** The events without their time stamps (and the hashes, which cover them), to compare runs made at different times. */
export function untimed(events: readonly StoredEvent[]): object[] {
  return events.map(({ at: _at, hash: _hash, ...event }) => event);
}
