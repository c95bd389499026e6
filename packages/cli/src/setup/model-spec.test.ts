import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { modelFromSpec, parseModelSpec } from "./model-spec.js";

/** Imports as Node does when the named packages are not installed (the real `ERR_MODULE_NOT_FOUND`). */
function without(...missing: string[]) {
  return (specifier: string) => import(missing.includes(specifier) ? `${specifier}-not-installed` : specifier);
}

/** Imports as Node does for a user who installed the AI SDK provider packages (here, the ones @agentloop/ai-sdk is tested with). */
const bridge = createRequire(createRequire(import.meta.url).resolve("@agentloop/ai-sdk"));
const installed = (specifier: string) =>
  specifier.startsWith("@ai-sdk/") ? import(pathToFileURL(bridge.resolve(specifier)).href) : import(specifier);

describe("modelFromSpec with a provider not installed", () => {
  it.each([
    ["openai:gpt-4o-mini", { OPENAI_API_KEY: "k" }, ["openai"], "@agentloop/openai openai"],
    ["openai:gpt-4o-mini", { OPENAI_API_KEY: "k" }, ["@agentloop/openai"], "@agentloop/openai openai"],
    ["anthropic:claude-x", { ANTHROPIC_API_KEY: "k" }, ["@anthropic-ai/sdk"], "@agentloop/anthropic @anthropic-ai/sdk"],
    [
      "google:gemini-2.5-flash",
      { GOOGLE_GENERATIVE_AI_API_KEY: "k" },
      ["@ai-sdk/google"],
      "@agentloop/ai-sdk @ai-sdk/google",
    ],
    [
      "mistral:mistral-large-latest",
      { MISTRAL_API_KEY: "k" },
      ["@agentloop/ai-sdk"],
      "@agentloop/ai-sdk @ai-sdk/mistral",
    ],
    [
      "bedrock:us.anthropic.claude-sonnet-4-6",
      { AWS_REGION: "us-east-1", AWS_BEARER_TOKEN_BEDROCK: "k" },
      ["@ai-sdk/amazon-bedrock"],
      "@agentloop/ai-sdk @ai-sdk/amazon-bedrock",
    ],
  ])("%s without %j names what to install in one line", async (model, env, missing, install) => {
    const loading = modelFromSpec(parseModelSpec(model), env, without(...missing));
    await expect(loading).rejects.toThrow(
      `--model ${model} needs ${install}, which is not installed: npm i ${install}`,
    );
    await expect(loading).rejects.toMatchObject({ name: "UsageError" });
  });

  it("loads an installed AI SDK provider through the bridge, named provider/modelId", async () => {
    const google = await modelFromSpec(
      parseModelSpec("google:gemini-2.5-flash"),
      { GOOGLE_GENERATIVE_AI_API_KEY: "k" },
      installed,
    );
    expect(google.modelName).toBe("google.generative-ai/gemini-2.5-flash");
    const mistral = await modelFromSpec(
      parseModelSpec("mistral:mistral-small-latest"),
      { MISTRAL_API_KEY: "k" },
      installed,
    );
    expect(mistral.modelName).toBe("mistral.chat/mistral-small-latest");
    const bedrock = await modelFromSpec(
      parseModelSpec("bedrock:us.anthropic.claude-sonnet-4-6"),
      {
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: "id",
        AWS_SECRET_ACCESS_KEY: "secret",
      },
      installed,
    );
    expect(bedrock.modelName).toBe("amazon-bedrock/us.anthropic.claude-sonnet-4-6");
  });

  it("refuses a missing key, and an unknown provider, in one line each", async () => {
    await expect(modelFromSpec(parseModelSpec("google:gemini-2.5-flash"), {})).rejects.toThrow(
      /^GOOGLE_GENERATIVE_AI_API_KEY is not set: export GOOGLE_GENERATIVE_AI_API_KEY=<your key>/,
    );
    await expect(modelFromSpec(parseModelSpec("bedrock:m"), { AWS_REGION: "us-east-1" })).rejects.toThrow(
      /^AWS_ACCESS_KEY_ID is not set: .*AWS_BEARER_TOKEN_BEDROCK/,
    );
    expect(() => parseModelSpec("groq:llama")).toThrow(
      "--model must be <provider>:<name>, the provider one of openai, anthropic, google, bedrock, mistral (e.g. openai:gpt-4o-mini, google:gemini-2.5-flash); got 'groq:llama'",
    );
  });

  it("loads the installed SDK and adapter", async () => {
    const model = await modelFromSpec(parseModelSpec("openai:gpt-4o-mini"), { OPENAI_API_KEY: "k" });
    expect(typeof model).toBe("function");
  });
});
