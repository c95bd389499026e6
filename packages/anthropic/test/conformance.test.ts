import { describeConformance } from "@agentloop/provider-testkit";
import { anthropicModel } from "../src/index.js";
import { MODEL, messageOf, startFakeAnthropic } from "./fake-anthropic.js";

// The thinking-model and reasoning-model scenarios run with thinking on; the fake server then
// holds the adapter to the API's thinking rules (blocks back first, unchanged, signed).
describeConformance(
  "anthropicModel",
  async (replies, scenario) => {
    const server = await startFakeAnthropic(replies.map(messageOf));
    const thinking = scenario.kind === undefined ? {} : { thinking: { type: "enabled" as const, budget_tokens: 1024 } };
    return {
      model: anthropicModel({ client: server.client(), model: MODEL, maxTokens: 2048, ...thinking }),
      violations: server.violations,
      close: server.close,
    };
  },
  { reasoning: "signed", cacheWrites: true },
);
