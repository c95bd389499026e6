import {
  Agent,
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  setTracingDisabled,
  tool,
  Usage,
} from "@openai/agents";
import type { Harness } from "../harness.js";
import { ANSWER, C_TO_F_TOOL, decide, SYSTEM, TASK, WEATHER_TOOL } from "../scenario.js";
import { packageVersion } from "../versions.js";

setTracingDisabled(true);

/** A custom `Model` that returns canned function calls, then the final message. */
class WeatherModel implements Model {
  readonly #steps: number;
  readonly #delayMs: number;

  constructor(steps: number, delayMs: number) {
    this.#steps = steps;
    this.#delayMs = delayMs;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    // The input starts with the task (the system prompt travels apart); each step adds the call and its output.
    const length = typeof request.input === "string" ? 1 : request.input.length;
    const call = await decide((length - 1) / 2, this.#steps, this.#delayMs);
    const output: AgentOutputItem[] =
      call === null
        ? [
            {
              type: "message",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: ANSWER }],
            },
          ]
        : [{ type: "function_call", callId: call.id, name: call.name, arguments: call.json, status: "completed" }];
    return { usage: new Usage(), output };
  }

  // biome-ignore lint/correctness/useYield: the bench never streams.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the bench does not stream");
  }
}

// With a JSON schema the SDK hands `execute` the parsed input as `unknown`; the strict schema has checked it.
const tools = [
  tool({
    ...WEATHER_TOOL,
    parameters: WEATHER_TOOL.schema,
    strict: true,
    execute: (input) => WEATHER_TOOL.execute(input as { city: string }),
  }),
  tool({
    ...C_TO_F_TOOL,
    parameters: C_TO_F_TOOL.schema,
    strict: true,
    execute: (input) => C_TO_F_TOOL.execute(input as { celsius: number }),
  }),
];
const runner = new Runner({ tracingDisabled: true });

/** The OpenAI Agents SDK: an `Agent` with a custom model and tracing off, run for at most `steps` turns. */
export const openaiAgentsHarness: Harness = {
  name: "OpenAI Agents SDK",
  version: `@openai/agents ${packageVersion("@openai/agents")}`,
  prepare(steps, delayMs) {
    const agent = new Agent({ name: "weather", instructions: SYSTEM, model: new WeatherModel(steps, delayMs), tools });
    return async () => {
      const result = await runner.run(agent, TASK, { maxTurns: steps });
      const toolOutputs = result.newItems.flatMap((item) =>
        item.type === "tool_call_output_item" ? [item.output] : [],
      );
      return {
        finished: typeof result.finalOutput === "string",
        answer: result.finalOutput ?? "",
        modelCalls: result.rawResponses.length,
        toolOutputs,
        result,
      };
    };
  },
};
