import { UsageError } from "../cli-error.js";
import type { ModelWithLimits } from "../core-api.js";
import { type Importer, importOptional } from "./optional-module.js";

/** Reply tokens asked of Anthropic models, which require a limit; it is also kept free in the token budget. */
export const ANTHROPIC_MAX_TOKENS = 1024;

/** The providers `--model` names: the two adapters, and AI SDK providers through `aiSdkModel`. */
export const MODEL_PROVIDERS = ["openai", "anthropic", "google", "bedrock", "mistral"] as const;

/** A `--model` value: the provider and the provider's model name. */
export interface ModelSpec {
  readonly provider: (typeof MODEL_PROVIDERS)[number];
  readonly name: string;
}

/** Reads `<provider>:<name>` for one of `MODEL_PROVIDERS`, or throws a `UsageError` that shows the form. */
export function parseModelSpec(text: string): ModelSpec {
  const match = /^([a-z]+):(.+)$/.exec(text.trim());
  const provider = MODEL_PROVIDERS.find((known) => known === match?.[1]);
  if (match === null || provider === undefined || match[2] === undefined) {
    throw new UsageError(
      `--model must be <provider>:<name>, the provider one of ${MODEL_PROVIDERS.join(", ")} (e.g. openai:gpt-4o-mini, google:gemini-2.5-flash); got '${text}'`,
    );
  }
  return { provider, name: match[2] };
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
  if (spec.provider !== "openai" && spec.provider !== "anthropic") {
    return bridgedModel(spec.provider, spec.name, what, env, load);
  }
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

/** What the CLI takes from an AI SDK provider package: its factory, which gives models by id. */
type ProviderModule = Readonly<
  Record<string, (settings: Record<string, unknown>) => (modelId: string) => BridgedModel>
>;
type BridgedModel = Parameters<typeof import("@agentloop/ai-sdk")["aiSdkModel"]>[0];
type BridgedProvider = Exclude<ModelSpec["provider"], "openai" | "anthropic">;

/** Each AI SDK provider: its package, the factory it exports, and the factory's settings from the environment. */
const BRIDGED: Readonly<
  Record<
    BridgedProvider,
    { module: string; factory: string; settings(env: NodeJS.ProcessEnv): Record<string, unknown> }
  >
> = {
  google: {
    module: "@ai-sdk/google",
    factory: "createGoogleGenerativeAI",
    settings: (env) => ({ apiKey: requireKey(env, "GOOGLE_GENERATIVE_AI_API_KEY", "create one in Google AI Studio") }),
  },
  mistral: {
    module: "@ai-sdk/mistral",
    factory: "createMistral",
    settings: (env) => ({ apiKey: requireKey(env, "MISTRAL_API_KEY", "create one in Mistral's console") }),
  },
  bedrock: { module: "@ai-sdk/amazon-bedrock", factory: "createAmazonBedrock", settings: bedrockSettings },
};

/**
 * A model of an AI SDK provider package through `aiSdkModel`, keyed from the provider's usual
 * environment variables: `GOOGLE_GENERATIVE_AI_API_KEY` (Gemini API), `MISTRAL_API_KEY`, and for
 * Bedrock `AWS_REGION` with `AWS_BEARER_TOKEN_BEDROCK` or `AWS_ACCESS_KEY_ID` and
 * `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`).
 */
async function bridgedModel(
  provider: BridgedProvider,
  name: string,
  what: string,
  env: NodeJS.ProcessEnv,
  load: Importer | undefined,
): Promise<ModelWithLimits> {
  const { module, factory, settings } = BRIDGED[provider];
  const given = settings(env);
  const packages = ["@agentloop/ai-sdk", module];
  const [providerModule, { aiSdkModel }] = await Promise.all([
    importOptional<ProviderModule>(module, what, packages, load),
    importOptional<typeof import("@agentloop/ai-sdk")>("@agentloop/ai-sdk", what, packages, load),
  ]);
  const create = providerModule[factory];
  if (create === undefined) throw new UsageError(`${module} has no ${factory}: install a version that does (${what})`);
  return aiSdkModel(create(given)(name));
}

/** Bedrock's region, and its API key or else the AWS access keys. */
function bedrockSettings(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const region = requireKey(env, "AWS_REGION", "the region of your Bedrock models, e.g. us-east-1");
  const bearer = env.AWS_BEARER_TOKEN_BEDROCK || undefined;
  if (bearer !== undefined) return { region, apiKey: bearer };
  return {
    region,
    accessKeyId: requireKey(env, "AWS_ACCESS_KEY_ID", "or set AWS_BEARER_TOKEN_BEDROCK to a Bedrock API key"),
    secretAccessKey: requireKey(env, "AWS_SECRET_ACCESS_KEY", "the secret of AWS_ACCESS_KEY_ID"),
    ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
  };
}

function requireKey(env: NodeJS.ProcessEnv, name: string, hint: string): string {
  const value = env[name];
  if (value === undefined || value === "") {
    throw new UsageError(`${name} is not set: export ${name}=<your key> to use this model (${hint})`);
  }
  return value;
}
