import type { Message, ModelDelta } from "@agentloop/core";
import {
  type FakeResponse,
  type FakeStep,
  makeWeatherRegistry,
  mismatches,
  type RecordedRequest,
} from "@agentloop/provider-testkit";
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { AnthropicStreamError, anthropicModel } from "../src/index.js";
import { type FakeAnthropic, failures, MODEL, startFakeAnthropic } from "./fake-anthropic.js";
import { redactedThinkingToolUse, refusalWithoutText, thinkingToolUse } from "./fixtures/messages.js";
import { cutStream, omittedThinkingAnswer, overloadedMidStream, thinkingTextToolUse } from "./fixtures/streams.js";
import { messageEvents } from "./message-events.js";

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

const specs = makeWeatherRegistry().registry.specs();
const start: Message[] = [{ role: "user", content: "How hot is Pune in Fahrenheit?" }];
const ok = (body: unknown): FakeResponse => ({ status: 200, body });

async function streamed(fake: FakeAnthropic, signal = new AbortController().signal) {
  const deltas: ModelDelta[] = [];
  const model = anthropicModel({ client: fake.client({ maxRetries: 0 }), model: MODEL, maxTokens: 2048 });
  const reply = await model(start, specs, { signal, onDelta: (delta) => deltas.push(delta) });
  return { reply, deltas };
}

async function plain(body: unknown) {
  const fake = await serve(ok(body));
  const reply = await anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 2048 })(start, specs, {
    signal: new AbortController().signal,
  });
  await fake.close();
  return reply;
}

describe("anthropicModel streaming over recorded event streams", () => {
  it("thinking, its signature, text and a tool use arrive as deltas and add up to the reply", async () => {
    const fake = await serve(thinkingTextToolUse);
    const { reply, deltas } = await streamed(fake);
    expect(reply).toStrictEqual({
      content: "I'll look up Pune first.",
      toolCalls: [{ id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "get_weather", args: { city: "Pune" } }],
      usage: { inputTokens: 778, outputTokens: 48 },
      reasoning: [
        {
          type: "reasoning",
          text: "The user wants Pune in Fahrenheit. I need the weather first.",
          signature: expect.stringMatching(/^ErUBCkYIARgCIkACJWxz/) as unknown as string,
        },
      ],
    });
    expect(deltas[0]).toEqual({ type: "reasoning-delta", text: "The user wants Pune" });
    expect(deltas.at(-1)).toEqual({ type: "tool-call-delta", index: 0, argsText: 'ne"}' });
    expect(mismatches(reply, deltas)).toEqual([]);
    expect(fake.requests[0]?.body).toMatchObject({ stream: true });
  });

  it("omitted thinking (a signature and no text) is kept as an empty reasoning part with its signature", async () => {
    const fake = await serve(omittedThinkingAnswer);
    const { reply, deltas } = await streamed(fake);
    expect(reply.reasoning).toEqual([{ type: "reasoning", text: "", signature: expect.stringMatching(/^EsECCokB/) }]);
    expect(reply.content).toBe("It is 86 F in Pune.");
    expect(deltas.filter((delta) => delta.type === "reasoning-delta")).toEqual([]);
    expect(mismatches(reply, deltas)).toEqual([]);
  });

  it.each([
    ["thinking and a tool use", thinkingToolUse],
    ["redacted thinking", redactedThinkingToolUse],
    ["a refusal with no text", refusalWithoutText],
  ])("%s streamed gives the reply its JSON gives, the deltas adding up to it", async (_name, body) => {
    const json = await plain(body);
    const fake = await serve(messageEvents(body));
    const { reply, deltas } = await streamed(fake);
    expect(reply).toStrictEqual(json);
    expect(mismatches(reply, deltas)).toEqual([]);
  });
});

describe("a stream that breaks off rejects with a clear error", () => {
  it("an overloaded_error event rejects with AnthropicStreamError, the SDK's error as cause", async () => {
    const fake = await serve(overloadedMidStream);
    const error = await streamed(fake).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AnthropicStreamError);
    expect((error as Error).cause).toBeInstanceOf(Anthropic.APIError);
    expect(String(error)).toMatch(/the stream broke off after 3 events: .*overloaded_error/);
  });

  it("a dropped connection rejects with AnthropicStreamError", async () => {
    const fake = await serve(cutStream);
    await expect(streamed(fake)).rejects.toBeInstanceOf(AnthropicStreamError);
  });

  it("a stream that ends before message_stop rejects with AnthropicStreamError", async () => {
    const fake = await serve({ events: thinkingTextToolUse.events.slice(0, 12) });
    await expect(streamed(fake)).rejects.toBeInstanceOf(AnthropicStreamError);
  });

  it("a request refused before the stream starts rejects with the SDK's error, as without streaming", async () => {
    const fake = await serve(failures.badKey);
    await expect(streamed(fake)).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it("the signal aborts a stream in flight with the SDK's APIUserAbortError", async () => {
    let arrived: (request: RecordedRequest) => void = () => {};
    const arrival = new Promise<RecordedRequest>((resolve) => {
      arrived = resolve;
    });
    const fake = await serve((request) => {
      arrived(request);
      return { events: thinkingTextToolUse.events.slice(0, 5), end: "hold" };
    });
    const controller = new AbortController();
    const model = anthropicModel({ client: fake.client(), model: MODEL, maxTokens: 2048 });
    const reply = model(start, specs, {
      signal: controller.signal,
      onDelta: (delta) => {
        if (delta.type === "reasoning-delta") controller.abort();
      },
    });
    const request = await arrival;
    await expect(reply).rejects.toBeInstanceOf(Anthropic.APIUserAbortError);
    await request.abandoned;
  });
});
