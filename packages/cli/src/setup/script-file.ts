import { type ModelReply, type ScriptedModel, scriptedModel } from "@agentloop/core";
import { checkReply } from "@agentloop/core/adapter";
import { UsageError } from "../cli-error.js";
import { readJsonFile } from "./read-file.js";

/**
 * A scripted model from a JSON file holding an array of `ModelReply` objects, for offline runs
 * and tests. Each reply is checked with core's `checkReply`; any problem is a `UsageError`.
 */
export function loadScript(path: string): ScriptedModel {
  const value = readJsonFile(path, "script");
  if (!Array.isArray(value)) {
    throw new UsageError(`script ${path} must hold a JSON array of model replies ({ "content", "toolCalls" })`);
  }
  const replies: ModelReply[] = value.map((item: unknown, index) => {
    const reply = checkReply(item);
    if (typeof reply === "string") throw new UsageError(`script ${path}: reply ${index}: ${reply}`);
    return reply;
  });
  return scriptedModel(replies);
}
