import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpAgent } from "@ag-ui/client";
import {
  asks,
  final,
  MemoryEventStore,
  type Model,
  ModelError,
  type ModelReply,
  replayRun,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { agUiHandler } from "../src/index.js";
import { serveOnLoopback } from "./http-server.js";

const CHILD = join(import.meta.dirname, "fixtures", "cut-off-thread-child.mjs");
/** The replies of the run the child serves: look it up, then say so. */
const TURN: readonly ModelReply[] = [asks(toolCall("l1", "look_up", {})), final("Found.")];

const directory = mkdtempSync(join(tmpdir(), "agentloop-ag-ui-cut-off-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Runs the thread's first run in a child that kills itself with SIGKILL right after `killAt` is logged. */
async function killedAfter(killAt: string): Promise<{ dir: string; childRuns: () => number }> {
  const dir = join(directory, killAt);
  const counts = join(directory, `${killAt}.counts`);
  const child = spawn(process.execPath, [CHILD, dir, "cut", killAt, counts], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const signal = await new Promise<NodeJS.Signals | null>((resolve) =>
    child.once("exit", (_code, sig) => resolve(sig)),
  );
  expect(signal).toBe("SIGKILL");
  const childRuns = () => (existsSync(counts) ? readFileSync(counts, "utf8").split("\n").filter(Boolean).length : 0);
  return { dir, childRuns };
}

/** How a run of HttpAgent ended: its result, or the error it reported. */
async function runOf(agent: HttpAgent, runId: string): Promise<{ result: unknown } | { error: string }> {
  let ended: { result: unknown } | { error: string } = { error: "no end" };
  try {
    await agent.runAgent(
      { runId },
      {
        onRunFinishedEvent: (params) => {
          ended = params.outcome === "success" ? { result: params.result } : { error: `ended ${params.outcome}` };
        },
        onRunErrorEvent: ({ event }) => {
          ended = { error: event.message };
        },
      },
    );
  } catch (error) {
    ended = { error: error instanceof Error ? error.message : String(error) };
  }
  return ended;
}

describe("a thread whose run was cut off goes on with the next message, from its log", () => {
  it.each(["run.started", "model.replied", "tool.started", "tool.finished"])(
    "killed with SIGKILL after %s: HttpAgent's next message finishes the run and answers; nothing logged runs again",
    async (killAt) => {
      const { dir, childRuns } = await killedAfter(killAt);
      const store = new JsonlEventStore(dir);
      const cut = await store.read("cut");
      expect(cut.at(-1)?.type).toBe(killAt);
      const replied = cut.filter((event) => event.type === "model.replied").length;
      // The model is asked only for what the log does not hold: the rest of the run, then the new message.
      const model = scriptedModel([...TURN.slice(replied), final("You are welcome.")]);
      let runs = 0;
      const registry = new ToolRegistry();
      registry.register("look_up", "Look it up.", { type: "object", properties: {} }, () => {
        runs++;
        return "found";
      });
      const server = await serveOnLoopback(agUiHandler({ model, registry, store }));
      closers.push(server.close);
      const agent = new HttpAgent({ url: server.url, threadId: "cut" });
      agent.addMessage({ id: "u1", role: "user", content: "Look it up." });
      agent.addMessage({ id: "u2", role: "user", content: "Thanks." });
      expect(await runOf(agent, "run-2")).toEqual({ result: { status: "done", answer: "You are welcome." } });
      const log = await store.read("cut");
      expect(replayRun(log, { runId: "cut" }).result).toMatchObject({ status: "done", answer: "You are welcome." });
      expect(model.seen).toHaveLength(TURN.length - replied + 1);
      expect(JSON.stringify(model.seen.at(-1))).toContain("Thanks.");
      // A call whose start or result is logged is not run again (the tool is not idempotent).
      expect(runs).toBe(killAt === "run.started" || killAt === "model.replied" ? 1 : 0);
      expect(childRuns() + runs).toBeLessThanOrEqual(1);
      expect(log.filter((event) => event.type === "tool.finished")).toHaveLength(1);
    },
  );

  it("a model call that failed (a 503 the run does not retry): the next message asks it again and goes on", async () => {
    const store = new JsonlEventStore(join(directory, "failed"));
    let failing = 1;
    const replies = scriptedModel([final("Back again."), final("Still here.")]);
    const model: Model = (messages, tools, options) => {
      if (failing > 0) {
        failing--;
        throw new ModelError("503 Service Unavailable", { messages: [], step: 1, retryable: true });
      }
      return replies(messages, tools, options);
    };
    // With exposeErrors the client is told the provider's words (by default only that the agent failed).
    const handler = agUiHandler({ model, registry: new ToolRegistry(), store, exposeErrors: true });
    const server = await serveOnLoopback(handler);
    closers.push(server.close);
    const agent = new HttpAgent({ url: server.url, threadId: "flaky" });
    agent.addMessage({ id: "u1", role: "user", content: "Hello?" });
    expect(await runOf(agent, "run-1")).toEqual({ error: expect.stringContaining("503") });
    agent.addMessage({ id: "u2", role: "user", content: "Are you there?" });
    expect(await runOf(agent, "run-2")).toEqual({ result: { status: "done", answer: "Still here." } });
    const log = await store.read("flaky");
    expect(replayRun(log, { runId: "flaky" }).result).toMatchObject({ status: "done", answer: "Still here." });
    expect(log.filter((event) => event.type === "model.replied")).toHaveLength(2);
  });
});

describe("a thread whose run is still going is not taken for cut off", () => {
  it("a message while the run goes on (its client went away) is 409 before any event; the run is not taken up twice", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let runs = 0;
    const registry = new ToolRegistry();
    registry.register("look_up", "Look it up.", { type: "object", properties: {} }, async () => {
      runs++;
      await gate;
      return "found";
    });
    const store = new MemoryEventStore();
    const model = scriptedModel([...TURN, final("You are welcome.")]);
    const handler = agUiHandler({ model, registry, store });
    const post = (runId: string, content: string) =>
      handler(
        new Request("http://127.0.0.1/agent", {
          method: "POST",
          body: JSON.stringify({
            threadId: "busy",
            runId,
            messages: [{ id: runId, role: "user", content }],
            tools: [],
            context: [],
          }),
        }),
      );
    const first = await post("run-1", "Look it up.");
    // The client goes away: the run goes on in the background.
    await first.body?.cancel();
    while (runs === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    const second = await post("run-2", "Thanks.");
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: string }).error).toMatch(/still going/);
    release();
    while ((await store.read("busy")).at(-1)?.type !== "run.finished")
      await new Promise((resolve) => setTimeout(resolve, 2));
    expect(runs).toBe(1);
    const third = await post("run-3", "Thanks.");
    expect(third.status).toBe(200);
    await third.text();
    expect(replayRun(await store.read("busy"), { runId: "busy" }).result).toMatchObject({ answer: "You are welcome." });
  });
});
