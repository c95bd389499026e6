import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  continueAgent,
  final,
  type Message,
  replayRun,
  resumeAgent,
  scriptedModel,
  ToolRegistry,
} from "../../src/index.js";
import { messagesOf } from "../../src/machine.js";
import { EVENT_LOG_SCHEMA_VERSION, parseEventLog } from "../../src/store.js";
import { JsonlEventStore } from "../../src/stores/jsonl-store.js";

// Golden logs of schema 2: written once by the code of that version (parallel calls, approval per
// call, a conversation with history, reasoning and a refusal, the repeat guard, an interruption
// with two calls in flight) and never regenerated. Every expectation is a literal from those
// runs: a change that can no longer read them, or reads them differently, fails here.

const GOLDEN = join(import.meta.dirname, "..", "fixtures", "golden");

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A JsonlEventStore over a temporary copy of the golden logs: the fixtures themselves are never written. */
function goldenStore(): JsonlEventStore {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-golden-v2-"));
  dirs.push(dir);
  cpSync(GOLDEN, dir, { recursive: true });
  return new JsonlEventStore(dir);
}

/** The tools the golden runs had: the same specs, approval and idempotency flags; `ran` lists real executions. */
function goldenTools() {
  const ran: string[] = [];
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius. Use it before any weather answer.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ({ city }: { city: string }) => {
      ran.push(`get_weather(${city})`);
      return { city, celsius: city === "Pune" ? 30 : 35 };
    },
    { idempotent: true },
  );
  registry.register(
    "c_to_f",
    "Convert Celsius to Fahrenheit. Use it for every conversion.",
    { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] },
    ({ celsius }: { celsius: number }) => {
      ran.push(`c_to_f(${celsius})`);
      return (celsius * 9) / 5 + 32;
    },
  );
  registry.register(
    "post_alert",
    "Post a heat alert for a city. Needs approval.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ({ city }: { city: string }) => ({ posted: city }),
    { needsApproval: true },
  );
  return { registry, ran };
}

const tools = (messages: readonly Message[]) =>
  messages.flatMap((m) => (m.role === "tool" ? [[m.toolCallId, m.isError === true]] : []));

describe("golden logs of schema version 2", () => {
  it("are all here", () => {
    const files = readdirSync(GOLDEN).filter((file) => file.startsWith("v2-"));
    expect(files.sort()).toEqual([
      "v2-conversation.jsonl",
      "v2-interrupted.jsonl",
      "v2-parallel.jsonl",
      "v2-repeated.jsonl",
    ]);
    // Schema 3 came after them (golden-v3.test.ts): these are kept as written, and read as schema 2.
    expect(EVENT_LOG_SCHEMA_VERSION).toBeGreaterThan(2);
  });

  it("every line is checked against its hash, and a changed byte is caught", () => {
    const text = readFileSync(join(GOLDEN, "v2-parallel.jsonl"), "utf8");
    const values = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as unknown);
    expect(parseEventLog("v2-parallel", values)).toHaveLength(12);
    const damaged = text
      .replace('"celsius\\":35', '"celsius\\":53')
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as unknown);
    expect(() => parseEventLog("v2-parallel", damaged)).toThrow(/event 8 does not match its hash/);
    // The same lines under another run's name do not pass either: the chain starts from the run's id.
    expect(() => parseEventLog("v2-other", values)).toThrow(/event 0 does not match its hash/);
  });

  it("v2-parallel: calls finishing out of order, one approved and one denied, an overrun shown", async () => {
    const events = await goldenStore().read("v2-parallel");
    expect(events.map((e) => (e.type === "tool.finished" ? e.callId : "")).filter(Boolean)).toEqual(["a1", "w2", "w1"]);
    const { result } = replayRun(events, { runId: "v2-parallel" });
    expect(result).toMatchObject({
      status: "done",
      answer: "Delhi is hotter.",
      steps: 2,
      tokens: 1163,
      tokensOverBudget: 163,
    });
    expect(result?.messages).toHaveLength(8);
    // Tool messages in call order, whatever order the calls finished in.
    expect(tools(result?.messages ?? [])).toEqual([
      ["w1", false],
      ["w2", false],
      ["a1", false],
      ["a2", true],
    ]);
  });

  it("v2-conversation: history carried over, reasoning kept, a second turn that ends in a refusal", async () => {
    const store = goldenStore();
    const events = await store.read("v2-conversation");
    const { result, context } = replayRun(events, { runId: "v2-conversation" });
    expect(result).toMatchObject({ status: "refused", answer: null, steps: 3, tokens: 1058 });
    const messages = messagesOf(context.transcript);
    expect(messages).toHaveLength(11);
    expect(messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
    const reasoning = messages[6]?.role === "assistant" ? messages[6].reasoning : undefined;
    expect(reasoning).toEqual([
      { type: "reasoning", text: "Look Delhi up.", signature: "c2lnbmF0dXJl" },
      { type: "redacted-reasoning", data: "ZW5jcnlwdGVk" },
    ]);
    expect(messages[10]).toEqual({
      role: "assistant",
      content: "I can't help with that.",
      toolCalls: [],
      finishReason: "refusal",
    });
    // It goes on with a third turn.
    const { registry } = goldenTools();
    const third = await continueAgent(
      "v2-conversation",
      "Sorry. How hot is Pune?",
      scriptedModel([final("30 C.")]),
      registry,
      {
        store,
      },
    );
    expect([third.status, third.answer, third.steps]).toEqual(["done", "30 C.", 4]);
  });

  it("v2-repeated: the guard stops the run at the repeat; the call before it ran, the rest are closed", async () => {
    const { result } = replayRun(await goldenStore().read("v2-repeated"), { runId: "v2-repeated" });
    expect(result).toMatchObject({ status: "repeated_call", answer: null, steps: 2, tokens: 773 });
    expect(tools(result?.messages ?? [])).toEqual([
      ["r1", false],
      ["r2", true],
      ["r3", true],
    ]);
  });

  it("v2-interrupted: two calls in flight; resume runs the idempotent ones again and finishes", async () => {
    const store = goldenStore();
    const events = await store.read("v2-interrupted");
    const replay = replayRun(events, { runId: "v2-interrupted" });
    expect(replay.result).toBeNull();
    expect(replay.snapshot.value).toEqual({ executingTools: "runningTools" });
    expect([...replay.interrupted]).toEqual(["w1", "w2"]);
    expect([replay.context.steps, replay.context.tokens]).toEqual([1, 224]);
    const { registry, ran } = goldenTools();
    const result = await resumeAgent("v2-interrupted", scriptedModel([final("Delhi is hotter.")]), registry, { store });
    expect(result).toMatchObject({ status: "done", answer: "Delhi is hotter.", steps: 2 });
    // c1's result was logged: it does not run again; both weather calls were cut, and are idempotent.
    expect(ran.sort()).toEqual(["get_weather(Delhi)", "get_weather(Pune)"]);
    expect(tools(result.messages)).toEqual([
      ["w1", false],
      ["w2", false],
      ["c1", false],
    ]);
  });
});
