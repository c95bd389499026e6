import { UsageError } from "../cli-error.js";
import type { ModelWithLimits } from "../core-api.js";
import { type Importer, importOptional } from "./optional-module.js";

/** Reply tokens asked of Anthropic models, which require a limit; it is also kept free in the token budget. */
export const ANTHROPIC_MAX_TOKENS = 1024;

/** A `--model` value: the provider and the provider's model name. */
export interface ModelSpec {
  readonly provider: "openai" | "anthropic";
  readonly name: string;
}

/** Reads `openai:<name>` or `anthropic:<name>`, or throws a `UsageError` that shows the form. */
export function parseModelSpec(text: string): ModelSpec {
  const match = /^(openai|anthropic):(.+)$/.exec(text.trim());
  if (match === null || match[1] === undefined || match[2] === undefined) {
    throw new UsageError(`--model must be openai:<name> or anthropic:<name> (e.g. openai:gpt-4o-mini); got '${text}'`);
  }
  return { provider: match[1] === "openai" ? "openai" : "anthropic", name: match[2] };
}

/**
 * The real adapter for a `--model` value, on the official SDK, configured from the usual
 * environment variables (`OPENAI_API_KEY` and `OPENAI_BASE_URL`, or `ANTHROPIC_API_KEY`). A missing
 * key is a `UsageError`. The SDK and its adapter are optional peers of the CLI, loaded only when a
 * real model is asked for: one not installed is a `UsageError` naming what to install.
 */
export async function modelFromSpec(
  spec: ModelSpec,
  env: NodeJS.ProcessEnv = process.env,
  load?: Importer,
): Promise<ModelWithLimits> {
  const what = `--model ${spec.provider}:${spec.name}`;
  if (spec.provider === "openai") {
    const apiKey = requireKey(env, "OPENAI_API_KEY", "for a local server that needs no key, set it to any text");
    const packages = ["@agentloop/openai", "openai"];
    const [{ default: OpenAI }, { openaiModel }] = await Promise.all([
      importOptional<typeof import("openai")>("openai", what, packages, load),
      importOptional<typeof import("@agentloop/openai")>("@agentloop/openai", what, packages, load),
    ]);
    const baseURL = env.OPENAI_BASE_URL || undefined;
    return openaiModel({ client: new OpenAI({ apiKey, baseURL }), model: spec.name });
  }
  const apiKey = requireKey(env, "ANTHROPIC_API_KEY", "create one in the Anthropic console");
  const packages = ["@agentloop/anthropic", "@anthropic-ai/sdk"];
  const [{ default: Anthropic }, { anthropicModel }] = await Promise.all([
    importOptional<typeof import("@anthropic-ai/sdk")>("@anthropic-ai/sdk", what, packages, load),
    importOptional<typeof import("@agentloop/anthropic")>("@agentloop/anthropic", what, packages, load),
  ]);
  return anthropicModel({ client: new Anthropic({ apiKey }), model: spec.name, maxTokens: ANTHROPIC_MAX_TOKENS });
}

function requireKey(env: NodeJS.ProcessEnv, name: string, hint: string): string {
  const value = env[name];
  if (value === undefined || value === "") {
    throw new UsageError(`${name} is not set: export ${name}=<your key> to use this model (${hint})`);
  }
  return value;
}
