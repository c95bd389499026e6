import { UsageError } from "../cli-error.js";
import { checkReply, type ModelReply, type ScriptedModel, scriptedModel } from "../core-api.js";
import { readJsonFile } from "./read-file.js";

/**
 * A scripted model from a JSON file holding an array of `ModelReply` objects, for offline runs
 * and tests. Each reply is checked with core's `checkReply`; any problem is a `UsageError`. For a
 * resumed run, `logged` holds the replies its log already has: a script that starts with exactly
 * those (the script the run was started with) goes on after them, so the same `--script` works
 * for `run` and `resume`; any other script holds the replies still to come.
 */
export function loadScript(path: string, logged: readonly ModelReply[] = []): ScriptedModel {
  const value = readJsonFile(path, "script");
  if (!Array.isArray(value)) {
    throw new UsageError(`script ${path} must hold a JSON array of model replies ({ "content", "toolCalls" })`);
  }
  const replies: ModelReply[] = value.map((item: unknown, index) => {
    const reply = checkReply(item);
    if (typeof reply === "string") throw new UsageError(`script ${path}: reply ${index}: ${reply}`);
    return reply;
  });
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const resumes = logged.length > 0 && logged.every((reply, index) => same(reply, replies[index]));
  return scriptedModel(resumes ? replies.slice(logged.length) : replies);
}
