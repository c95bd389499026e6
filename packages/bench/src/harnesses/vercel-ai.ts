import { generateText, isStepCount, jsonSchema, type LanguageModel, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import type { Harness } from "../harness.js";
import { ANSWER, C_TO_F_TOOL, decide, SYSTEM, TASK, WEATHER_TOOL } from "../scenario.js";
import { packageVersion } from "../versions.js";

const tools = {
  [WEATHER_TOOL.name]: tool({ ...WEATHER_TOOL, inputSchema: jsonSchema<{ city: string }>(WEATHER_TOOL.schema) }),
  [C_TO_F_TOOL.name]: tool({ ...C_TO_F_TOOL, inputSchema: jsonSchema<{ celsius: number }>(C_TO_F_TOOL.schema) }),
};

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/**
 * The mock model from `ai/test`. It records every call's options; the record is cleared on each
 * call, so that the mock's bookkeeping (a prompt kept per call) is not charged to the SDK's loop.
 */
function weatherModel(steps: number, delayMs: number): LanguageModel {
  const model: MockLanguageModelV4 = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      model.doGenerateCalls.length = 0;
      // The prompt starts with the system message and the task; each step adds the call and its result.
      const call = await decide((prompt.length - 2) / 2, steps, delayMs);
      if (call === null) {
        return {
          content: [{ type: "text", text: ANSWER }],
          finishReason: { unified: "stop", raw: undefined },
          usage,
          warnings: [],
        };
      }
      return {
        content: [{ type: "tool-call", toolCallId: call.id, toolName: call.name, input: call.json }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  return model;
}

/** The Vercel AI SDK: `generateText` with the mock model, `tool()` with JSON schemas, at most `steps` steps. */
export const vercelAiHarness: Harness = {
  name: "Vercel AI SDK",
  version: `ai ${packageVersion("ai")}`,
  prepare(steps, delayMs) {
    return async () => {
      const model = weatherModel(steps, delayMs);
      const result = await generateText({ model, system: SYSTEM, prompt: TASK, tools, stopWhen: isStepCount(steps) });
      return {
        finished: result.finishReason === "stop",
        answer: result.text,
        modelCalls: result.steps.length,
        toolOutputs: result.steps.flatMap((step) => step.toolResults.map((toolResult) => toolResult.output)),
        result,
      };
    };
  },
};
