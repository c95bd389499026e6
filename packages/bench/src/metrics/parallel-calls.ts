import { asks, final, runAgent, scriptedModel, ToolRegistry, toolCall } from "@agentloop/core";
import { generateText, isStepCount, jsonSchema, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { median } from "../measure.js";

/** Wall milliseconds of one reply of three slow tool calls, by harness name. */
export type ParallelCalls = ReadonlyMap<string, number>;

const CITIES = ["Pune", "Delhi", "Mumbai"] as const;

/** A tool call that takes `ms` milliseconds, as a slow API would. */
const slowLookup =
  (ms: number) =>
  async ({ city }: { city: string }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { city, celsius: 30 };
  };

async function agentloopRun(ms: number): Promise<number> {
  const registry = new ToolRegistry();
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    slowLookup(ms),
  );
  const model = scriptedModel([
    asks(...CITIES.map((city, i) => toolCall(`c${i}`, "get_weather", { city }))),
    final("ok"),
  ]);
  const start = performance.now();
  const result = await runAgent("Weather in three cities?", model, registry);
  const wall = performance.now() - start;
  if (result.status !== "done" || result.messages.filter((m) => m.role === "tool").length !== 3) {
    throw new Error(`agentloop: the three calls did not all run (${result.status})`);
  }
  return wall;
}

async function vercelRun(ms: number): Promise<number> {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
  let call = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async () =>
      call++ === 0
        ? {
            content: CITIES.map((city, i) => ({
              type: "tool-call" as const,
              toolCallId: `c${i}`,
              toolName: "get_weather",
              input: JSON.stringify({ city }),
            })),
            finishReason: { unified: "tool-calls" as const, raw: undefined },
            usage,
            warnings: [],
          }
        : {
            content: [{ type: "text" as const, text: "ok" }],
            finishReason: { unified: "stop" as const, raw: undefined },
            usage,
            warnings: [],
          },
  });
  const tools = {
    get_weather: tool({
      description: "Current temperature of one city in Celsius.",
      inputSchema: jsonSchema<{ city: string }>({
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"],
      }),
      execute: slowLookup(ms),
    }),
  };
  const start = performance.now();
  const result = await generateText({ model, prompt: "Weather in three cities?", tools, stopWhen: isStepCount(2) });
  const wall = performance.now() - start;
  if (result.steps[0]?.toolResults.length !== 3) throw new Error("Vercel AI SDK: the three calls did not all run");
  return wall;
}

/**
 * A reply of three tool calls of `ms` milliseconds each, then the answer: the wall time of the
 * whole run for agentloop (whose calls of one reply run at once) and the Vercel AI SDK, alternating
 * over `rounds` rounds; the median of each. Ideal: the slowest call.
 */
export async function measureParallelCalls(ms: number, rounds: number): Promise<ParallelCalls> {
  const agentloop: number[] = [];
  const vercel: number[] = [];
  for (let round = 0; round < rounds; round++) {
    agentloop.push(await agentloopRun(ms));
    vercel.push(await vercelRun(ms));
  }
  return new Map([
    ["agentloop", median(agentloop)],
    ["Vercel AI SDK", median(vercel)],
  ]);
}
