import { describeConformance } from "@agentloop/provider-testkit";
import { openaiModel } from "../src/index.js";
import { completionOf, MODEL, startFakeOpenAI } from "./fake-openai.js";

describeConformance("openaiModel", async (replies) => {
  const server = await startFakeOpenAI(replies.map(completionOf));
  return {
    model: openaiModel({ client: server.client(), model: MODEL }),
    violations: server.violations,
    close: server.close,
  };
});
