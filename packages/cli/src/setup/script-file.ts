import { UsageError } from "../cli-error.js";
import {
  type CliModel,
  checkReply,
  type Message,
  type ModelReply,
  type ScriptedModel,
  scriptedModel,
} from "../core-api.js";
import { readJsonFile } from "./read-file.js";

/**
 * A scripted model from a JSON file holding an array of `ModelReply` objects, for offline runs
 * and tests. Each reply is checked with core's `checkReply`; any problem is a `UsageError`. For a
 * resumed run, `logged` holds the replies its log already has: a script that starts with exactly
 * those (the script the run was started with) goes on after them, so the same `--script` works
 * for `run` and `resume`; any other script holds the replies still to come.
 */
export function loadScript(path: string, logged: readonly ModelReply[] = []): ScriptedModel {
  const replies = readScript(path);
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const resumes = logged.length > 0 && logged.every((reply, index) => same(reply, replies[index]));
  return scriptedModel(resumes ? replies.slice(logged.length) : replies);
}

/**
 * The script of a file (as `loadScript` reads it) for a server, where each conversation replays it
 * from its start: a call is answered with the reply at the number of assistant messages the
 * conversation holds so far. So every chat, thread or task gets the same replies in the same order,
 * and a conversation continued, resumed or served again after a restart goes on where it stopped.
 */
export function loadConversationScript(path: string): CliModel {
  const replies = readScript(path);
  return (messages: readonly Message[], tools, options) => {
    const index = messages.filter((message) => message.role === "assistant").length;
    if (index >= replies.length) {
      throw new Error(
        `script ran out: the conversation called the model ${index + 1} times, the script has ${replies.length} replies`,
      );
    }
    // A script of the one reply, for the deltas a streaming model would send.
    return scriptedModel([replies[index] as ModelReply])(messages, tools, options);
  };
}

function readScript(path: string): ModelReply[] {
  const value = readJsonFile(path, "script");
  if (!Array.isArray(value)) {
    throw new UsageError(`script ${path} must hold a JSON array of model replies ({ "content", "toolCalls" })`);
  }
  return value.map((item: unknown, index) => {
    const reply = checkReply(item);
    if (typeof reply === "string") throw new UsageError(`script ${path}: reply ${index}: ${reply}`);
    return reply;
  });
}
