import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { aiSdkModel } from "@agentloop/ai-sdk";
import type { Message, ToolSpec } from "@agentloop/core";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";

// What `aiSdkModel` costs per model call on top of calling the provider object itself
// (`pnpm --filter @agentloop/bench bench:ai-sdk-model`, after a build; `--tiny` runs a tiny size).
// The provider is ai/test's MockLanguageModelV4 answering at once with a Gemini-like reply (a
// signed reasoning part, text, a signed tool call, nested usage), so that only the two paths'
// own work is timed: the direct call gets a prompt built beforehand, as code that holds the
// provider's prompt would; the bridge builds it from the run's messages and maps the reply back.
const tiny = process.argv.includes("--tiny");
const CALLS = tiny ? 200 : 20_000;
const ROUNDS = tiny ? 1 : 5;
const TURNS = [1, 10, 50];

const signed = { google: { thoughtSignature: "CiQBVKhc7mQbXIoRpLiGXk0vBThCYGZh1NFDmWBm4JeqH8dQ0bMK" } };
const usage = {
  inputTokens: { total: 1200, noCache: 400, cacheRead: 800, cacheWrite: 0 },
  outputTokens: { total: 90, text: 40, reasoning: 50 },
};
const call = {
  type: "tool-call" as const,
  toolCallId: "c9",
  toolName: "get_weather",
  input: '{"city":"Pune"}',
  providerMetadata: signed,
};
const result = {
  content: [
    { type: "reasoning" as const, text: "Pune first, then convert.", providerMetadata: signed },
    { type: "text" as const, text: "Checking." },
    call,
  ],
  finishReason: { unified: "tool-calls" as const, raw: "STOP" },
  usage,
  warnings: [],
};
type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer Part> ? Part : never;
const parts: StreamPart[] = [
  { type: "stream-start" as const, warnings: [] },
  { type: "reasoning-start" as const, id: "r" },
  { type: "reasoning-delta" as const, id: "r", delta: "Pune first, ", providerMetadata: signed },
  { type: "reasoning-delta" as const, id: "r", delta: "then convert." },
  { type: "reasoning-end" as const, id: "r" },
  { type: "text-start" as const, id: "t" },
  { type: "text-delta" as const, id: "t", delta: "Checking." },
  { type: "text-end" as const, id: "t" },
  { type: "tool-input-start" as const, id: "c9", toolName: "get_weather" },
  { type: "tool-input-delta" as const, id: "c9", delta: '{"city":"Pune"}' },
  { type: "tool-input-end" as const, id: "c9" },
  call,
  { type: "finish" as const, usage, finishReason: result.finishReason },
];

const provider = new MockLanguageModelV4({
  provider: "google.generative-ai",
  modelId: "gemini-2.5-flash",
  doGenerate: async () => result,
  doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
});
// The mock keeps every call's options: cleared each round, so that memory stays flat.
const forget = () => {
  provider.doGenerateCalls.length = 0;
  provider.doStreamCalls.length = 0;
};

const tools: ToolSpec[] = [
  {
    name: "get_weather",
    description: "Current temperature of one city in Celsius.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];

/** A conversation of `turns` tool rounds, each reply signed as Gemini's are. */
function conversation(turns: number): Message[] {
  const messages: Message[] = [
    { role: "system", content: "Use the tools." },
    { role: "user", content: "How hot is Pune?" },
  ];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: "assistant",
      content: "",
      reasoning: [{ type: "reasoning", text: "Pune first.", providerMetadata: signed }],
      toolCalls: [{ id: `c${i}`, name: "get_weather", args: { city: "Pune" }, providerMetadata: signed }],
    });
    messages.push({ role: "tool", toolCallId: `c${i}`, name: "get_weather", content: '{"city":"Pune","celsius":30}' });
  }
  return messages;
}

/** The same conversation as the provider's own prompt, built once: what a caller of the provider holds. */
function providerPrompt(messages: readonly Message[]) {
  return messages.map((message) => {
    if (message.role === "system") return { role: "system" as const, content: message.content };
    if (message.role === "user")
      return { role: "user" as const, content: [{ type: "text" as const, text: String(message.content) }] };
    if (message.role === "tool") {
      return {
        role: "tool" as const,
        content: [
          {
            type: "tool-result" as const,
            toolCallId: message.toolCallId,
            toolName: message.name,
            output: { type: "text" as const, value: String(message.content) },
          },
        ],
      };
    }
    return {
      role: "assistant" as const,
      content: [
        ...(message.reasoning ?? []).map((part) => ({
          type: "reasoning" as const,
          text: part.type === "reasoning" ? part.text : "",
          providerOptions: signed,
        })),
        ...message.toolCalls.map((call) => ({
          type: "tool-call" as const,
          toolCallId: call.id,
          toolName: call.name,
          input: call.args,
          providerOptions: signed,
        })),
      ],
    };
  });
}

async function drain(stream: ReadableStream<unknown>): Promise<void> {
  const reader = stream.getReader();
  while (!(await reader.read()).done) {}
}

/** Median microseconds per call of `call` over ROUNDS rounds of CALLS calls, after one round to warm up. */
async function perCallUs(call: () => PromiseLike<unknown>): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    forget();
    const start = performance.now();
    for (let i = 0; i < CALLS; i++) await call();
    if (round > 0) rounds.push(((performance.now() - start) * 1000) / CALLS);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)] ?? Number.NaN;
}

const model = aiSdkModel(provider);
const signal = new AbortController().signal;
const onDelta = () => {};
const load = loadavg().map((value) => value.toFixed(1));
console.log(`aiSdkModel per call, ${CALLS} calls, median of ${ROUNDS}; ${cpus().length} cores, load ${load.join(" ")}`);
console.log(
  "| Conversation | Provider directly | Through aiSdkModel | Added | Streamed directly | Streamed through aiSdkModel | Added |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const turns of TURNS) {
  const messages = conversation(turns);
  const prompt = providerPrompt(messages);
  const direct = await perCallUs(() => provider.doGenerate({ prompt, tools: [], abortSignal: signal }));
  const bridged = await perCallUs(async () => model(messages, tools, { signal }));
  const directStream = await perCallUs(async () =>
    drain((await provider.doStream({ prompt, tools: [], abortSignal: signal })).stream),
  );
  const bridgedStream = await perCallUs(async () => model(messages, tools, { signal, onDelta }));
  const us = (value: number) => `${value.toFixed(2)} µs`;
  console.log(
    `| ${2 + 2 * turns} messages | ${us(direct)} | ${us(bridged)} | +${us(bridged - direct)} | ${us(directStream)} | ${us(bridgedStream)} | +${us(bridgedStream - directStream)} |`,
  );
}
console.log(
  `load at the end ${loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")}`,
);
