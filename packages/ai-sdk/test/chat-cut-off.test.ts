import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatHandler } from "@agentloop/ai-sdk";
import { type Model, ModelError, type ModelReply, replayRun, ToolRegistry } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { lastText, listen, NodeChat } from "./chat-server.js";

const CHILD = join(import.meta.dirname, "fixtures", "cut-off-chat-child.mjs");
/** The replies of the turn the child serves: look it up, then say so. */
const TURN: readonly ModelReply[] = [asks(toolCall("l1", "look_up", {})), final("Found.")];

const directory = mkdtempSync(join(tmpdir(), "agentloop-chat-cut-off-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Runs the chat's first turn in a child that kills itself with SIGKILL right after `killAt` is logged. */
async function killedAfter(killAt: string, label = killAt): Promise<{ dir: string; childRuns: () => number }> {
  const dir = join(directory, label);
  const counts = join(directory, `${label}.counts`);
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

/** `look_up`, counting its runs in this process. */
function lookUp(): { registry: ToolRegistry; runs: () => number } {
  let runs = 0;
  const registry = new ToolRegistry();
  registry.register("look_up", "Look it up.", { type: "object", properties: {} }, () => {
    runs++;
    return "found";
  });
  return { registry, runs: () => runs };
}

describe("a chat whose turn was cut off goes on with the next message, from its log", () => {
  it.each(["run.started", "model.replied", "tool.started", "tool.finished"])(
    "killed with SIGKILL after %s: the next message finishes the turn and answers; nothing logged runs again",
    async (killAt) => {
      const { dir, childRuns } = await killedAfter(killAt);
      const store = new JsonlEventStore(dir);
      const cut = await store.read("cut");
      expect(cut.at(-1)?.type).toBe(killAt);
      const replied = cut.filter((event) => event.type === "model.replied").length;
      // The model is asked only for what the log does not hold: the rest of the turn, then the new message.
      const model = scriptedModel([...TURN.slice(replied), final("You are welcome.")]);
      const { registry, runs } = lookUp();
      const server = await listen(chatHandler({ model, registry, store }));
      servers.push(server);
      const errors: Error[] = [];
      const chat = new NodeChat("cut", server.url, {
        onError: (error) => errors.push(error),
        messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Look it up." }] }],
      });
      await chat.sendMessage({ text: "Thanks." });
      expect(errors).toEqual([]);
      expect(lastText(chat.messages)).toContain("You are welcome.");
      const log = await store.read("cut");
      expect(replayRun(log, { runId: "cut" }).result).toMatchObject({ status: "done", answer: "You are welcome." });
      expect(model.seen).toHaveLength(TURN.length - replied + 1);
      expect(JSON.stringify(model.seen.at(-1))).toContain("Thanks.");
      // A call whose start or result is logged is not run again (the tool is not idempotent).
      expect(runs()).toBe(killAt === "run.started" || killAt === "model.replied" ? 1 : 0);
      expect(childRuns() + runs()).toBeLessThanOrEqual(1);
      expect(log.filter((event) => event.type === "tool.finished")).toHaveLength(1);
    },
  );

  it("killed after model.replied: the page's regenerate finishes the cut-off turn and adds no message", async () => {
    const { dir } = await killedAfter("model.replied", "regenerated");
    const store = new JsonlEventStore(dir);
    const model = scriptedModel(TURN.slice(1));
    const { registry, runs } = lookUp();
    const server = await listen(chatHandler({ model, registry, store }));
    servers.push(server);
    const errors: Error[] = [];
    const chat = new NodeChat("cut", server.url, {
      onError: (error) => errors.push(error),
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Look it up." }] }],
    });
    await chat.regenerate();
    expect(errors).toEqual([]);
    expect(lastText(chat.messages)).toBe("Found.");
    expect(runs()).toBe(1);
    const log = await store.read("cut");
    expect(log.filter((event) => event.type === "user.messaged")).toHaveLength(0);
    expect(replayRun(log, { runId: "cut" }).result).toMatchObject({ status: "done", answer: "Found." });
  });

  it("a model call that failed with its retries spent: the next message asks it again and goes on", async () => {
    const store = new JsonlEventStore(join(directory, "failed"));
    let failing = 2;
    const replies = scriptedModel([final("Back again."), final("Still here.")]);
    const model: Model = (messages, tools, options) => {
      if (failing > 0) {
        failing--;
        throw new ModelError("503 Service Unavailable", { messages: [], step: 1, retryable: true });
      }
      return replies(messages, tools, options);
    };
    const options = { retry: { attempts: 1, initialDelayMs: 0 } };
    // The page is told the run failed, not why: the provider's words go to onError.
    const heard: unknown[] = [];
    const onError = (error: unknown) => heard.push(error);
    const server = await listen(chatHandler({ model, registry: new ToolRegistry(), store, options, onError }));
    servers.push(server);
    const errors: Error[] = [];
    const chat = new NodeChat("flaky", server.url, { onError: (error) => errors.push(error) });
    await chat.sendMessage({ text: "Hello?" });
    expect(errors.map((error) => error.message)).toEqual(["the agent failed (flaky)"]);
    expect(heard.map((error) => (error as Error).message)).toEqual([expect.stringContaining("503")]);
    errors.length = 0;
    await chat.sendMessage({ text: "Are you there?" });
    expect(errors).toEqual([]);
    expect(lastText(chat.messages)).toContain("Still here.");
    const log = await store.read("flaky");
    expect(replayRun(log, { runId: "flaky" }).result).toMatchObject({ status: "done", answer: "Still here." });
    expect(log.filter((event) => event.type === "model.replied")).toHaveLength(2);
  });
});
