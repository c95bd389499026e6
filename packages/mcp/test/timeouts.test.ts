import { asks, final, type RunOptions, runAgent, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import type { Client } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type McpClient, mcpTools } from "../src/index.js";
import { connectInMemory } from "./connect.js";

type CallOptions = Parameters<Client["callTool"]>[1];

let open: Awaited<ReturnType<typeof connectInMemory>> | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await open?.close();
  open = undefined;
});

/** A connected client whose `callTool` notes the request options the SDK gets. */
async function spiedClient(): Promise<{ client: McpClient; seen: CallOptions[] }> {
  open = await connectInMemory();
  const real = open.client;
  const seen: CallOptions[] = [];
  const client: McpClient = {
    listTools: (...args) => real.listTools(...args),
    callTool: (params, options) => {
      seen.push(options);
      return real.callTool(params, options);
    },
  };
  return { client, seen };
}

async function runAdd(client: McpClient, options: RunOptions = {}, overrides = {}): Promise<unknown> {
  const registry = new ToolRegistry(await mcpTools(client, { include: ["add"], overrides }));
  const model = scriptedModel([asks(toolCall("c1", "add", { a: 1, b: 2 })), final("3")]);
  const result = await runAgent("Add.", model, registry, options);
  return result.messages.find((message) => message.role === "tool")?.content;
}

describe("the SDK's request timeout follows the call's timeout", () => {
  it("the run's toolTimeoutMs reaches the SDK's request options", async () => {
    const { client, seen } = await spiedClient();
    expect(await runAdd(client, { toolTimeoutMs: 120_000 })).toBe('{"sum":3}');
    expect(seen).toEqual([expect.objectContaining({ timeout: 120_000, signal: expect.any(AbortSignal) })]);
  });

  it("the run's default, a tool's own timeoutMs, and no timeout at all reach it too", async () => {
    const { client, seen } = await spiedClient();
    await runAdd(client);
    await runAdd(client, { toolTimeoutMs: 120_000 }, { add: { timeoutMs: 5_000 } });
    await runAdd(client, { toolTimeoutMs: Number.POSITIVE_INFINITY });
    // No timeout: the longest a timer can wait, so that only the run's signal ends the call.
    expect(seen.map((options) => options?.timeout)).toEqual([60_000, 5_000, 2 ** 31 - 1]);
    expect(seen.every((options) => options?.resetTimeoutOnProgress !== true)).toBe(true);
  });

  it("a call longer than the SDK's 60 s default ends at the run's timeout, with the lost-result warning", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    open = await connectInMemory();
    const registry = new ToolRegistry(
      await mcpTools(open.client, { include: ["hang"], options: { needsApproval: false } }),
    );
    const model = scriptedModel([asks(toolCall("h", "hang")), final("ok")]);
    let ended = false;
    const run = runAgent("Wait.", model, registry, { toolTimeoutMs: 120_000 }).finally(() => {
      ended = true;
    });
    await vi.advanceTimersByTimeAsync(62_000);
    expect(ended).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    const result = await run;
    expect(result.messages.find((message) => message.role === "tool")?.content).toBe(
      "ERROR: hang timed out after 120000 ms. It may still have had an effect; check before calling it again.",
    );
  });
});
