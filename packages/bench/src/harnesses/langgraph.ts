import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import type { Harness } from "../harness.js";
import { ANSWER, C_TO_F_TOOL, decide, SYSTEM, TASK, WEATHER_TOOL } from "../scenario.js";
import { packageVersion } from "../versions.js";

/** A fake tool-calling chat model: canned tool calls, then the answer; `bindTools` keeps it as it is. */
class WeatherChatModel extends BaseChatModel {
  readonly #steps: number;
  readonly #delayMs: number;

  constructor(steps: number, delayMs: number) {
    super({});
    this.#steps = steps;
    this.#delayMs = delayMs;
  }

  _llmType(): string {
    return "bench-weather";
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    // The list starts with the system prompt and the task; each step adds the AI message and the tool message.
    const call = await decide((messages.length - 2) / 2, this.#steps, this.#delayMs);
    const message =
      call === null
        ? new AIMessage(ANSWER)
        : new AIMessage({
            content: "",
            tool_calls: [{ id: call.id, name: call.name, args: { ...call.args }, type: "tool_call" }],
          });
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}

const tools = [tool(WEATHER_TOOL.execute, WEATHER_TOOL), tool(C_TO_F_TOOL.execute, C_TO_F_TOOL)];

/** LangGraph.js: the prebuilt `createReactAgent` with the fake chat model, no checkpointer. */
export const langgraphHarness: Harness = {
  name: "LangGraph.js",
  version: `@langchain/langgraph ${packageVersion("@langchain/langgraph")}, @langchain/core ${packageVersion("@langchain/core")}`,
  prepare(steps, delayMs) {
    const agent = createReactAgent({ llm: new WeatherChatModel(steps, delayMs), tools, prompt: SYSTEM });
    const config = { recursionLimit: 2 * steps + 10 };
    return async () => {
      const result = await agent.invoke({ messages: [{ role: "user", content: TASK }] }, config);
      const { messages } = result;
      const last = messages.at(-1);
      return {
        finished: last?.getType() === "ai" && (last as AIMessage).tool_calls?.length === 0,
        answer: typeof last?.content === "string" ? last.content : "",
        modelCalls: messages.filter((message) => message.getType() === "ai").length,
        toolOutputs: messages.flatMap((message) => (message.getType() === "tool" ? [message.content] : [])),
        result,
      };
    };
  },
};
