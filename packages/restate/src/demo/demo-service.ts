import "../polyfill.js";
import { createServer } from "node:http2";
import type { EventStore } from "@agentloop/core";
import { createEndpointHandler } from "@restatedev/restate-sdk";
import { demoWorkflow } from "./weather-agent.js";

/** Where the demo service listens and whom it registers with. */
export interface DemoServiceOptions {
  /** The port on 127.0.0.1 (0: any free one). */
  readonly port: number;
  /** The Restate server's admin URL: the service registers itself there once it listens. */
  readonly register?: string | undefined;
  /** Mirrors each run's event log there. */
  readonly store?: EventStore | undefined;
}

/** A running demo service. */
export interface DemoService {
  /** The URL Restate reaches the service at. */
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the demo agent over HTTP/2 on 127.0.0.1 and, if asked, registers it with a Restate server. */
export async function startDemoService({ port, register, store }: DemoServiceOptions): Promise<DemoService> {
  const server = createServer(createEndpointHandler({ services: [demoWorkflow(store)] }));
  const url = await new Promise<string>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : port}`);
    });
  });
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  if (register !== undefined) {
    try {
      await registerDeployment(register, url);
    } catch (error) {
      await close();
      throw error;
    }
  }
  return { url, close };
}

/** Registers the service at `url` with the Restate server whose admin API is at `admin`. */
export async function registerDeployment(admin: string, url: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(new URL("/deployments", admin), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ uri: url, force: true }),
    });
  } catch (error) {
    throw new Error(
      `cannot reach the Restate admin API at ${admin}: ${error instanceof Error ? error.message : error}`,
    );
  }
  if (!response.ok) {
    throw new Error(`the Restate server refused to register ${url}: ${response.status} ${await response.text()}`);
  }
}
