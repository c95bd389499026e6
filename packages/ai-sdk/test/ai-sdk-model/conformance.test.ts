import { describeConformance } from "@agentloop/provider-testkit";
import { aiSdkModel } from "../../src/index.js";
import { scriptedProvider } from "./scripted-provider.js";

// The kit's replies, served by an AI SDK provider model (MockLanguageModelV4 / V3 of `ai/test`) in
// the provider's own terms (content parts, nested usage, stream parts); each request's prompt is
// checked to carry the replies before it.
for (const version of ["v4", "v3"] as const) {
  describeConformance(
    `aiSdkModel (specification ${version})`,
    async (replies) => {
      const provider = scriptedProvider(replies, version);
      return { model: aiSdkModel(provider.model), violations: provider.violations, close: async () => {} };
    },
    { reasoning: "plain", cacheWrites: true },
  );
}
