import { describeConformance } from "@agentloop/provider-testkit";
import { openaiModel } from "../src/index.js";
import { completionOf, MODEL, reasoningFieldOf, startFakeOpenAI } from "./fake-openai.js";
import type { Dialect } from "./openai-wire-format.js";

// The spec's scenarios against OpenAI's rules; the thinking-model scenario against DeepSeek's
// thinking mode (which refuses tool-call history without its reasoning_content), the
// reasoning-model one against vLLM (reasoning in `reasoning`, wanted back for interleaved thinking).
describeConformance(
  "openaiModel",
  async (replies, scenario) => {
    const dialect: Dialect =
      scenario.kind === "thinking-model" ? "deepseek" : scenario.kind === "reasoning-model" ? "vllm" : "openai";
    const field = reasoningFieldOf(dialect);
    const server = await startFakeOpenAI(
      replies.map((reply) => completionOf(reply, field)),
      { dialect },
    );
    return {
      model: openaiModel({ client: server.client(), model: MODEL, reasoningField: field }),
      violations: server.violations,
      close: server.close,
    };
  },
  { reasoning: "plain" },
);
