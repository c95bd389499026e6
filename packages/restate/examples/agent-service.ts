import { createServer, type Http2Server } from "node:http2";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { agentWorkflow, DEMO_SCRIPT, demoTools, stepScriptedModel } from "@agentloop/restate";
import * as restate from "@restatedev/restate-sdk";

/**
 * The agent as a Restate workflow named "agent": a model (here the demo's scripted one; an
 * adapter's model in real use), its tools, the defaults of each run, and a store that mirrors
 * each run's event log. Every process that serves it runs the same code.
 */
export function agentService(runsDirectory: string) {
  return agentWorkflow({
    name: "agent",
    model: stepScriptedModel(DEMO_SCRIPT),
    registry: demoTools(),
    store: new JsonlEventStore(runsDirectory),
    maxSteps: 8,
    tokenBudget: 8000,
    toolTimeoutMs: 30_000,
  });
}

/** Serves the workflow over HTTP/2 on `port`; then register `http://<host>:<port>` with the Restate server. */
export function serve(runsDirectory: string, port: number): Promise<Http2Server> {
  const server = createServer(restate.endpoint().bind(agentService(runsDirectory)).http2Handler());
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}
