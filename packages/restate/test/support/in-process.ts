import { createServer } from "node:http2";
import type { Message, Model, ModelReply } from "@agentloop/core";
import * as restate from "@restatedev/restate-sdk";
import type { AgentWorkflow } from "../../src/index.js";

/** Workflows served from this (the test's) process over HTTP/2 on 127.0.0.1. */
export interface InProcessService {
  readonly uri: string;
  /** Messages the SDK logged at ERROR level (its warnings, e.g. for refused input, are dropped). */
  readonly errors: string[];
  close(): Promise<void>;
}

/** Serves `workflows` on a free port; they are registered by the caller. */
export function serveInProcess(workflows: readonly AgentWorkflow[]): Promise<InProcessService> {
  const errors: string[] = [];
  const handler = restate.createEndpointHandler({
    services: [...workflows],
    logger: (params, message) => {
      if (params.level === "error") errors.push(String(message));
    },
  });
  const server = createServer(handler);
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      resolve({
        uri: `http://127.0.0.1:${port}`,
        errors,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

/**
 * A scripted model that survives restarts and retries: the reply is the script's entry for the
 * step (the number of assistant messages so far), not for the number of calls made. `calls`
 * counts the calls per step.
 */
export function stepModel(script: readonly ModelReply[]): Model & { readonly calls: number[] } {
  const calls: number[] = [];
  const model = (messages: readonly Message[]): ModelReply => {
    const step = messages.filter((message) => message.role === "assistant").length;
    calls[step] = (calls[step] ?? 0) + 1;
    const reply = script[step];
    if (reply === undefined) throw new Error(`the script has no reply for step ${step + 1}`);
    return reply;
  };
  return Object.assign(model, { calls });
}
