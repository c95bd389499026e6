import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentStreamEvent,
  MemoryEventStore,
  type Message,
  replayRun,
  resumeAgent,
  runAgent,
} from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { parseEventLog } from "@agentloop/core/store";
import { deltaMismatches, makeWeatherRegistry, WEATHER_TASK } from "@agentloop/provider-testkit";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { afterAll, describe, expect, it } from "vitest";
import { aiSdkModel } from "../../src/index.js";
import {
  FINAL,
  FINAL_STREAM,
  FINAL_TEXT,
  isGeminiStream,
  PARALLEL_CALLS,
  PARALLEL_CALLS_STREAM,
  THOUGHT_SIGNATURE,
} from "./gemini-replies.js";
import { type ProviderReply, providerFetch, type RecordedCall } from "./provider-fetch.js";

const SENTINEL = "skip_thought_signature_validator";
const CHILD = new URL("./fixtures/gemini-crash-child.mjs", import.meta.url).pathname;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function gemini(replies: readonly ProviderReply[]) {
  const fake = providerFetch(replies, isGeminiStream);
  const google = createGoogleGenerativeAI({ apiKey: "test-key", fetch: fake.fetch });
  return { model: aiSdkModel(google("gemini-3-pro-preview")), calls: fake.calls };
}

/** The model turn of a Gemini request that holds the function calls, as sent. */
function modelTurn(call: RecordedCall | undefined) {
  const contents = call?.body.contents as { role: string; parts: Record<string, unknown>[] }[];
  return contents.find((content) => content.role === "model" && content.parts.some((part) => "functionCall" in part));
}

/** Checks a request that follows the parallel calls: the original signature on the first call, no sentinel anywhere. */
function expectSignedHistory(call: RecordedCall | undefined) {
  expect(call?.text).not.toContain(SENTINEL);
  const turn = modelTurn(call);
  // The provider sends each call's id too (the one it made up, as logged).
  expect(turn?.parts).toMatchObject([
    { functionCall: { name: "get_weather", args: { city: "Pune" } }, thoughtSignature: THOUGHT_SIGNATURE },
    { functionCall: { name: "get_weather", args: { city: "Delhi" } } },
  ]);
  expect(turn?.parts[1]).not.toHaveProperty("thoughtSignature");
}

describe("Gemini thought signatures through aiSdkModel (@ai-sdk/google)", () => {
  it("the call after two parallel calls, the first signed, carries the original signature and never the sentinel", async () => {
    const { model, calls } = gemini([{ json: PARALLEL_CALLS }, { json: FINAL }]);
    const store = new MemoryEventStore();
    const { registry, runs } = makeWeatherRegistry();
    const result = await runAgent(WEATHER_TASK, model, registry, { store, runId: "g" });
    expect(result).toMatchObject({ status: "done", answer: FINAL_TEXT, steps: 2 });
    expect(runs).toEqual([
      ["get_weather", "Pune"],
      ["get_weather", "Delhi"],
    ]);
    expect(calls).toHaveLength(2);
    expectSignedHistory(calls[1]);
    const assistant = result.messages.find((message) => message.role === "assistant");
    expect(assistant?.role === "assistant" && assistant.toolCalls.map((call) => call.providerMetadata)).toEqual([
      { google: { thoughtSignature: THOUGHT_SIGNATURE } },
      undefined,
    ]);
  });

  it("streamed: the signature that arrives in the first chunk goes back the same, and the deltas add up", async () => {
    const { model, calls } = gemini([{ events: PARALLEL_CALLS_STREAM }, { events: FINAL_STREAM }]);
    const events: AgentStreamEvent[] = [];
    const result = await runAgent(WEATHER_TASK, model, makeWeatherRegistry().registry, {
      onEvent: (event) => events.push(event),
    });
    expect(result).toMatchObject({ status: "done", answer: FINAL_TEXT, steps: 2 });
    expect(calls.map((call) => isGeminiStream(call.url))).toEqual([true, true]);
    expectSignedHistory(calls[1]);
    expect(deltaMismatches(events)).toEqual([]);
  });

  it("after replay: the log read back as JSON and replayed gives messages that send the same request", async () => {
    const first = gemini([{ json: PARALLEL_CALLS }, { json: FINAL }]);
    const store = new MemoryEventStore();
    const result = await runAgent(WEATHER_TASK, first.model, makeWeatherRegistry().registry, { store, runId: "g" });
    const logged = JSON.parse(JSON.stringify(await store.read("g"))) as unknown[];
    const replayed = replayRun(parseEventLog("g", logged)).result;
    expect(replayed?.messages).toEqual(result.messages);
    const beforeAnswer = (replayed?.messages ?? []).slice(0, -1) as Message[];
    const again = gemini([{ json: FINAL }]);
    await again.model(beforeAnswer, [], { signal: new AbortController().signal });
    // The same conversation as the live run sent (asked here without tools, so only the contents compare).
    expect(again.calls[0]?.body.contents).toEqual(first.calls[1]?.body.contents);
    expectSignedHistory(again.calls[0]);
  });

  it("after a kill -9 between the tool results and the next call, the resumed run sends the original signature", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gemini-kill-"));
    dirs.push(dir);
    const replyFile = join(dir, "reply.json");
    writeFileSync(replyFile, JSON.stringify(PARALLEL_CALLS));
    const child = spawnSync(process.execPath, [CHILD, join(dir, "store"), replyFile], { encoding: "utf8" });
    expect(child.stderr).toBe("");
    expect(child.signal).toBe("SIGKILL");

    const store = new JsonlEventStore(join(dir, "store"));
    const logged = await store.read("gemini");
    expect(logged.filter((event) => event.type === "tool.finished")).toHaveLength(2);
    const { model, calls } = gemini([{ json: FINAL }]);
    const { registry, runs } = makeWeatherRegistry();
    const result = await resumeAgent("gemini", model, registry, { store });
    expect(result).toMatchObject({ status: "done", answer: FINAL_TEXT });
    expect(runs).toEqual([]);
    expect(calls).toHaveLength(1);
    expectSignedHistory(calls[0]);
  });
});
