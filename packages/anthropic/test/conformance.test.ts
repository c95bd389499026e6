import { describeConformance } from "@agentloop/provider-testkit";
import { anthropicModel } from "../src/index.js";
import { MODEL, messageOf, startFakeAnthropic } from "./fake-anthropic.js";

describeConformance("anthropicModel", async (replies) => {
  const server = await startFakeAnthropic(replies.map(messageOf));
  return {
    model: anthropicModel({ client: server.client(), model: MODEL, maxTokens: 1024 }),
    violations: server.violations,
    close: server.close,
  };
});
