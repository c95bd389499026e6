import { describe, expect, it } from "vitest";
import { modelFromSpec, parseModelSpec } from "./model-spec.js";

/** Imports as Node does when the named packages are not installed (the real `ERR_MODULE_NOT_FOUND`). */
function without(...missing: string[]) {
  return (specifier: string) => import(missing.includes(specifier) ? `${specifier}-not-installed` : specifier);
}

describe("modelFromSpec with a provider not installed", () => {
  it.each([
    ["openai:gpt-4o-mini", { OPENAI_API_KEY: "k" }, ["openai"], "@agentloop/openai openai"],
    ["openai:gpt-4o-mini", { OPENAI_API_KEY: "k" }, ["@agentloop/openai"], "@agentloop/openai openai"],
    ["anthropic:claude-x", { ANTHROPIC_API_KEY: "k" }, ["@anthropic-ai/sdk"], "@agentloop/anthropic @anthropic-ai/sdk"],
  ])("%s without %j names what to install in one line", async (model, env, missing, install) => {
    const loading = modelFromSpec(parseModelSpec(model), env, without(...missing));
    await expect(loading).rejects.toThrow(
      `--model ${model} needs ${install}, which is not installed: npm i ${install}`,
    );
    await expect(loading).rejects.toMatchObject({ name: "UsageError" });
  });

  it("loads the installed SDK and adapter", async () => {
    const model = await modelFromSpec(parseModelSpec("openai:gpt-4o-mini"), { OPENAI_API_KEY: "k" });
    expect(typeof model).toBe("function");
  });
});
