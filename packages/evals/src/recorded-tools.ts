import { type ToolCall, type ToolOutcome, type ToolOutcomeKind, ToolRegistry } from "@agentloop/core";
import { canonicalJson, type LogFlags, logFlags, type RunEvent, toolFailureOf } from "@agentloop/core/store";

/** A call's key: its tool name and its arguments as canonical JSON (keys sorted). */
function keyOf(name: string, args: unknown): string {
  return `${name}\u0000${canonicalJson(args)}`;
}

/**
 * A registry that answers each tool call as a recorded run did: the tools (names, descriptions,
 * schemas) are the recording's, and a call is answered with the observation the recording logged
 * for a call of the same tool with the same arguments, in order (the second such call gets the
 * second answer). No function runs: deterministic, offline, free of side effects. A call the
 * recording does not have (another tool, other arguments, or more calls than it made) gets an
 * `ERROR:` observation saying so.
 */
export class RecordedTools extends ToolRegistry {
  readonly #answers = new Map<string, ToolOutcome[]>();

  constructor(events: readonly RunEvent[]) {
    super();
    const calls = new Map<string, ToolCall>();
    let flags: LogFlags = logFlags(1);
    for (const event of events) {
      if (event.type === "run.started") {
        flags = logFlags(event.schemaVersion);
        for (const spec of event.settings.tools) {
          if (this.functionOf(spec.name) === undefined) {
            this.register(spec.name, spec.description, spec.parameters, () => null);
          }
        }
      } else if (event.type === "model.replied") {
        for (const call of event.reply.toolCalls) calls.set(call.id, call);
      } else if (event.type === "tool.finished") {
        const call = calls.get(event.callId);
        if (call === undefined) continue;
        const key = keyOf(call.name, call.args);
        const list = this.#answers.get(key) ?? [];
        list.push({ kind: recordedKind(toolFailureOf(event, flags)), content: event.content });
        this.#answers.set(key, list);
      }
    }
  }

  /** The recorded outcome of the next call of `name` with `args`, or an `ERROR:` observation (as a tool that threw) when the recording has none left. */
  override async run(name: string, args: unknown): Promise<ToolOutcome> {
    const answers = this.#answers.get(keyOf(name, args));
    const answer = answers?.shift();
    if (answer !== undefined) return answer;
    const made = answers === undefined ? "made no such call" : "made no more such calls";
    return {
      kind: "threw",
      content: `ERROR: the recording has no answer for ${name}(${canonicalJson(args)}): the recorded run ${made}`,
    };
  }
}

/** A recorded error's kind as the registry's: its own when the registry made it, else a failure (`threw`). */
function recordedKind(failure: ReturnType<typeof toolFailureOf>): ToolOutcomeKind {
  if (failure === null) return "ok";
  return failure === "invalid-args" || failure === "timeout" || failure === "unknown-tool" ? failure : "threw";
}

/** A registry that answers each tool call as the run logged in `events` did (see `RecordedTools`). */
export function recordedTools(events: readonly RunEvent[]): ToolRegistry {
  return new RecordedTools(events);
}
