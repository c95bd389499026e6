import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Principal, runAgent, ToolRegistry } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { final } from "@agentloop/core/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { serveAgentHttp } from "../src/index.js";
import { listenMcp } from "./http-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const TOKENS: Readonly<Record<string, Principal>> = { a: { tenant: "acme" }, g: { tenant: "globex" } };
const authorize = (request: Request): Principal | Response =>
  TOKENS[(request.headers.get("authorization") ?? "").replace(/^Bearer /, "")] ??
  Response.json({ error: "sign in first" }, { status: 401 });

async function outcome(request: Promise<unknown>): Promise<string> {
  try {
    const result = (await request) as { isError?: boolean; status?: string; content?: { text: string }[] };
    if (typeof result.status === "string") return `task ${result.status}`;
    return `${result.isError === true ? "error: " : ""}${result.content?.[0]?.text ?? ""}`;
  } catch (error) {
    return `thrown: ${(error as Error).message}`;
  }
}

describe("serveAgentHttp: a run whose log has a torn last line (a crash mid-append)", () => {
  it("is answered to another tenant as an unknown run, and tells no client the store's file path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-secret-home-"));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const store = new JsonlEventStore(dir);
    const model = () => final("Done.");
    const registry = new ToolRegistry();
    await runAgent("Hi.", model, registry, { store, runId: "r1", owner: { tenant: "acme" } });
    appendFileSync(join(dir, "r1.jsonl"), '{"type":"user.mess');
    const handler = serveAgentHttp({ name: "agent", description: "An agent.", model, registry, store, authorize });
    const http = await listenMcp((request) => handler.fetch(request));
    closers.push(async () => {
      await handler.close();
      await http.close();
    });
    const client = async (token: string) => {
      const connected = new Client({ name: "tenant", version: "1.0.0" });
      await connected.connect(
        new StreamableHTTPClientTransport(http.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      closers.push(() => connected.close());
      return connected;
    };
    const globex = await client("g");
    const acme = await client("a");
    for (const [verb, send] of Object.entries({
      read: (c: Client, runId: string) => c.callTool({ name: "agent", arguments: { runId } }),
      "tasks/get": (c: Client, runId: string) => c.experimental.tasks.getTask(runId),
    })) {
      const other = await outcome(send(globex, "r1"));
      const unknown = (await outcome(send(globex, "nobody"))).replaceAll("nobody", "r1");
      expect([verb, other]).toEqual([verb, unknown]);
      expect(await outcome(send(acme, "r1"))).not.toContain(dir);
    }
  });
});
