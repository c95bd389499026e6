import type { Message, ModelDelta, ToolSpec } from "@agentloop/core";
import { makeWeatherRegistry, mismatches } from "@agentloop/provider-testkit";
import { afterEach, describe, expect, it } from "vitest";
import { openaiModel } from "../src/index.js";
import { type FakeOpenAI, MODEL, startFakeOpenAI } from "./fake-openai.js";

// Streams of OpenAI-compatible servers that bend the wire format: each reply must come out as the
// same reply unstreamed would, and its deltas must add up to it.

/** A stream of `deltas` from `model`, one chunk each, then the finish and `[DONE]`. */
function stream(model: string, deltas: readonly unknown[], finish: string) {
  const chunk = (delta: unknown, finishReason: string | null) => ({
    id: "chatcmpl-418",
    object: "chat.completion.chunk",
    created: 1787000101,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  return {
    events: [...deltas.map((delta) => chunk(delta, null)), chunk({}, finish)]
      .map((each) => ({ data: JSON.stringify(each) }))
      .concat([{ data: "[DONE]" }]),
  };
}

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The reply to `start` and the deltas it was streamed as. */
async function streamed(fake: FakeOpenAI, start: Message[], specs: readonly ToolSpec[], reasoningField?: "reasoning") {
  const deltas: ModelDelta[] = [];
  const model = openaiModel({ client: fake.client(), model: MODEL, ...(reasoningField ? { reasoningField } : {}) });
  const reply = await model(start, specs, {
    signal: new AbortController().signal,
    onDelta: (delta) => deltas.push(delta),
  });
  return { reply, deltas };
}

describe("openaiModel on servers that bend the stream", () => {
  // Ollama's /v1/chat/completions streams every call of a parallel batch whole, each in its own
  // chunk, all with `index: 0` (ollama/ollama#15457; vercel/ai#14277).
  it("keeps the parallel calls of a stream whose chunks all say index 0 apart, as the same reply unstreamed", async () => {
    const call = (id: string, city: string) => ({
      role: "assistant",
      content: "",
      tool_calls: [
        { id, index: 0, type: "function", function: { name: "get_weather", arguments: `{"city":"${city}"}` } },
      ],
    });
    const deltas = [call("call_k3v9q2ma", "Pune"), call("call_p7x2w4rb", "Delhi")];
    server = await startFakeOpenAI([stream("qwen3:8b", deltas, "tool_calls")], { dialect: "ollama" });
    const start: Message[] = [{ role: "user", content: "Which is hotter, Pune or Delhi?" }];
    const specs = makeWeatherRegistry().registry.specs();
    const { reply, deltas: told } = await streamed(server, start, specs, "reasoning");
    expect(reply.toolCalls).toStrictEqual([
      { id: "call_k3v9q2ma", name: "get_weather", args: { city: "Pune" } },
      { id: "call_p7x2w4rb", name: "get_weather", args: { city: "Delhi" } },
    ]);
    expect(mismatches(reply, told)).toEqual([]);
  });

  // StepFun (and vLLM builds with the reasoning_content back-compat) mirror each reasoning piece
  // into both `reasoning` and `reasoning_content` of the same delta (MoonshotAI/kimi-code#3928).
  it("tells each reasoning piece once when a server mirrors it into reasoning and reasoning_content", async () => {
    const deltas = [
      { role: "assistant", content: "", reasoning: "The", reasoning_content: "The" },
      { content: "", reasoning: " user greets.", reasoning_content: " user greets." },
      { content: "Hello!" },
    ];
    server = await startFakeOpenAI([stream("step-3.5-flash", deltas, "stop")], { dialect: "vllm" });
    const { reply, deltas: told } = await streamed(server, [{ role: "user", content: "Hi" }], []);
    expect(reply.reasoning).toEqual([{ type: "reasoning", text: "The user greets." }]);
    const text = told.flatMap((delta) => (delta.type === "reasoning-delta" ? [delta.text] : [])).join("");
    expect(text).toBe("The user greets.");
    expect(mismatches(reply, told)).toEqual([]);
  });
});
