import { type Message, runAgent } from "@agentloop/core";
import {
  type FakeResponse,
  type FakeStep,
  makeWeatherRegistry,
  type RecordedRequest,
} from "@agentloop/provider-testkit";
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicModel } from "../src/index.js";
import { type FakeAnthropic, MODEL, message, startFakeAnthropic } from "./fake-anthropic.js";
import {
  cacheUsageWithServerTool,
  redactedThinkingToolUse,
  refusalAfterText,
  refusalWithoutText,
  thinkingToolUse,
} from "./fixtures/messages.js";

// Recorded Messages API bodies (see fixtures/) served from 127.0.0.1 by a fake that refuses, in
// the API's words, what the API refuses: thinking blocks missing, moved or changed, empty turns.

let server: FakeAnthropic | undefined;

async function serve(...steps: FakeStep[]): Promise<FakeAnthropic> {
  server = await startFakeAnthropic(steps);
  return server;
}

afterEach(async () => {
  const violations = server?.violations ?? [];
  await server?.close();
  server = undefined;
  expect(violations, "requests the API would refuse").toEqual([]);
});

const ok = (body: unknown): FakeResponse => ({ status: 200, body });
const turnsOf = (request: RecordedRequest | undefined) =>
  (request?.body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
const answer = message({ content: [{ type: "text", text: "It is 86 F in Pune." }] });
const signal = new AbortController().signal;
const thinkingOn = { type: "enabled" as const, budget_tokens: 1024 };

async function run(fake: FakeAnthropic, task = "How hot is Pune in Fahrenheit?") {
  const { registry, runs } = makeWeatherRegistry();
  const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 2048, thinking: thinkingOn });
  return { result: await runAgent(task, model, registry), runs };
}

describe("thinking blocks go back first and unchanged", () => {
  it("a thinking block with its signature leads the assistant turn of the next call, or the API refuses it", async () => {
    const fake = await serve(ok(thinkingToolUse), answer);
    const { result } = await run(fake);
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune." });
    const [thinking, use] = thinkingToolUse.content;
    expect(result.messages[2]).toMatchObject({
      reasoning: [{ type: "reasoning", text: thinking?.thinking, signature: thinking?.signature }],
    });
    expect(turnsOf(fake.requests[1])[1]).toEqual({
      role: "assistant",
      content: [thinking, { type: "tool_use", id: use?.id, name: "get_weather", input: { city: "Pune" } }],
    });
    expect(fake.requests[0]?.body).toMatchObject({ thinking: thinkingOn, max_tokens: 2048 });
  });

  it("a redacted thinking block goes back as it came, its data untouched", async () => {
    const fake = await serve(ok(redactedThinkingToolUse), answer);
    const { result, runs } = await run(fake);
    expect(runs).toEqual([["get_weather", "Delhi"]]);
    expect(result.messages[2]).toMatchObject({
      reasoning: [{ type: "redacted-reasoning", data: redactedThinkingToolUse.content[0]?.data }],
    });
    expect(turnsOf(fake.requests[1])[1]?.content).toEqual([
      redactedThinkingToolUse.content[0],
      { type: "tool_use", id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "get_weather", input: { city: "Delhi" } },
    ]);
  });

  it("reasoning without a signature (another provider's) is not sent as a thinking block", async () => {
    const fake = await serve(answer);
    const history: Message[] = [
      { role: "user", content: "u" },
      {
        role: "assistant",
        content: "Hello.",
        toolCalls: [],
        reasoning: [{ type: "reasoning", text: "from DeepSeek" }],
      },
      { role: "user", content: "And Delhi?" },
    ];
    await anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256 })(history, [], { signal });
    expect(turnsOf(fake.requests[0])[1]).toEqual({ role: "assistant", content: "Hello." });
  });
});

describe("refusals and stop reasons", () => {
  it("a refusal after some text is a refusal: finishReason refusal, the text as content", async () => {
    const fake = await serve(ok(refusalAfterText));
    const reply = await anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256 })(
      [{ role: "user", content: "u" }],
      [],
      { signal },
    );
    expect(reply).toStrictEqual({
      content: "Hello..",
      toolCalls: [],
      usage: { inputTokens: 18, outputTokens: 5 },
      finishReason: "refusal",
    });
  });

  it("a refusal with no text ends the run as refused, the API's explanation as content", async () => {
    const fake = await serve(ok(refusalWithoutText));
    const { result } = await run(fake);
    expect(result.status).toBe("refused");
    expect(result.messages.at(-1)).toEqual({
      role: "assistant",
      content: refusalWithoutText.stop_details.explanation,
      toolCalls: [],
      finishReason: "refusal",
    });
  });

  it("cache writes and reads count as input, and server-tool blocks are not calls of ours", async () => {
    const fake = await serve(ok(cacheUsageWithServerTool));
    const { result, runs } = await run(fake);
    expect(runs).toEqual([]);
    expect(result).toMatchObject({ status: "done", answer: "It is 86 F in Pune.", tokens: 6 + 3337 + 6289 + 198 });
  });

  it("an empty answer earlier in the conversation is left out instead of sent as an empty turn", async () => {
    const fake = await serve(answer);
    const history: Message[] = [
      { role: "user", content: "u" },
      { role: "assistant", content: "", toolCalls: [] },
      { role: "user", content: "Still there?" },
    ];
    await anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 256, promptCache: false })(history, [], {
      signal,
    });
    expect(turnsOf(fake.requests[0])).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "u" },
          { type: "text", text: "Still there?" },
        ],
      },
    ]);
  });
});

describe("what the API refuses, the fake refuses in its words", () => {
  it("thinking left out of the assistant turn: 'Expected `thinking` or `redacted_thinking`, but found `tool_use`'", async () => {
    const fake = await serve(ok(thinkingToolUse), answer);
    const client = fake.client({ maxRetries: 0 });
    const question = { role: "user" as const, content: "How hot is Pune?" };
    await client.messages.create({ model: MODEL, max_tokens: 2048, messages: [question] });
    const use = thinkingToolUse.content[1] as Anthropic.ToolUseBlockParam;
    const withoutThinking = client.messages.create({
      model: MODEL,
      max_tokens: 2048,
      messages: [
        question,
        { role: "assistant", content: [{ type: "tool_use", id: use.id, name: use.name, input: use.input }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "30" }] },
      ],
    });
    await expect(withoutThinking).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(withoutThinking).rejects.toThrow(
      /messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled/,
    );
    expect(fake.violations).toHaveLength(1);
    fake.violations.length = 0;
  });
});
