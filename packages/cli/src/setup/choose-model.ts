import { UsageError } from "../cli-error.js";
import type { CliModel, ModelReply } from "../core-api.js";
import type { Io } from "../io.js";
import { modelFromSpec, parseModelSpec } from "./model-spec.js";
import { loadScript } from "./script-file.js";

/**
 * The model a command was given: `--model` (a real adapter) or `--script` (a scripted model; for
 * a resumed run, `logged` are the replies its log holds), not both. With neither, `fallback`
 * decides: a `UsageError`, or a model that fails when called (for a resumed run that may need no
 * model at all).
 */
export async function chooseModel(
  values: { readonly model?: string | undefined; readonly script?: string | undefined },
  io: Io,
  command: string,
  fallback: "refuse" | "failWhenCalled" = "refuse",
  logged: readonly ModelReply[] = [],
): Promise<CliModel> {
  if (values.model !== undefined && values.script !== undefined) {
    throw new UsageError(`give --model or --script, not both; see 'agentloop ${command} --help'`);
  }
  if (values.model !== undefined) return modelFromSpec(parseModelSpec(values.model), io.env);
  if (values.script !== undefined) return loadScript(values.script, logged);
  if (fallback === "refuse") {
    throw new UsageError(
      `'agentloop ${command}' needs a model: --model openai:<name> | anthropic:<name> | google:<name> | bedrock:<name> | mistral:<name>, or --script <file.json>`,
    );
  }
  return () => {
    throw new Error("the run needs the model to go on: give --model <provider:name> or --script <file.json>");
  };
}
