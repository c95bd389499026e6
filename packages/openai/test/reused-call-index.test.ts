import type { Message, ModelDelta } from "@agentloop/core";
import { makeWeatherRegistry, mismatches } from "@agentloop/provider-testkit";
import { afterEach, expect, it } from "vitest";
import { openaiModel } from "../src/index.js";
import { type FakeOpenAI, MODEL, startFakeOpenAI } from "./fake-openai.js";

// Ollama's /v1/chat/completions streams every call of a parallel batch whole, each in its own
// chunk, all with `index: 0` (ollama/ollama#15457; vercel/ai#14277).
const head = {
  id: "chatcmpl-418",
  object: "chat.completion.chunk",
  created: 1787000101,
  model: "qwen3:8b",
  system_fingerprint: "fp_ollama",
};
const chunk = (delta: unknown, finish: string | null = null) => ({
  ...head,
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const call = (id: string, city: string) =>
  chunk({
    role: "assistant",
    content: "",
    tool_calls: [
      { id, index: 0, type: "function", function: { name: "get_weather", arguments: `{"city":"${city}"}` } },
    ],
  });
const ollamaParallel = {
  events: [
    call("call_k3v9q2ma", "Pune"),
    call("call_p7x2w4rb", "Delhi"),
    chunk({ role: "assistant", content: "" }, "tool_calls"),
  ]
    .map((each) => ({ data: JSON.stringify(each) }))
    .concat([{ data: "[DONE]" }]),
};

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it("keeps the parallel calls of a stream whose chunks all say index 0 apart, as the same reply unstreamed", async () => {
  server = await startFakeOpenAI([ollamaParallel], { dialect: "ollama" });
  const specs = makeWeatherRegistry().registry.specs();
  const start: Message[] = [{ role: "user", content: "Which is hotter, Pune or Delhi?" }];
  const deltas: ModelDelta[] = [];
  const reply = await openaiModel({ client: server.client(), model: MODEL, reasoningField: "reasoning" })(
    start,
    specs,
    {
      signal: new AbortController().signal,
      onDelta: (delta) => deltas.push(delta),
    },
  );
  expect(reply.toolCalls).toStrictEqual([
    { id: "call_k3v9q2ma", name: "get_weather", args: { city: "Pune" } },
    { id: "call_p7x2w4rb", name: "get_weather", args: { city: "Delhi" } },
  ]);
  expect(mismatches(reply, deltas)).toEqual([]);
});
