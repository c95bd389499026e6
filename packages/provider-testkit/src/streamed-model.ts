import type { Model, ModelDelta, ModelReply } from "@agentloop/core";

/**
 * `model` called with an `onDelta` that collects every delta, so that an adapter streams inside
 * `runAgent` even before the run passes `onDelta` itself. After each call it checks that the deltas
 * add up to the reply: the text deltas to `content`, the reasoning deltas to the reasoning text,
 * and each call's argument fragments to its arguments (with its id and name); each mismatch is
 * pushed onto `problems` as one sentence.
 */
export function streamedModel(model: Model, problems: string[]): Model {
  return async (messages, tools, options) => {
    const deltas: ModelDelta[] = [];
    const reply = await model(messages, tools, { ...options, onDelta: (delta) => deltas.push(delta) });
    problems.push(...mismatches(reply, deltas).map((problem) => `call ${messages.length}: ${problem}`));
    return reply;
  };
}

/** Where the deltas of one call fail to add up to its reply, one sentence each. */
export function mismatches(reply: ModelReply, deltas: readonly ModelDelta[]): string[] {
  const problems: string[] = [];
  const text = deltas.flatMap((delta) => (delta.type === "text-delta" ? [delta.text] : [])).join("");
  if (text !== reply.content)
    problems.push(`text deltas ${JSON.stringify(text)} != content ${JSON.stringify(reply.content)}`);
  const reasoning = deltas.flatMap((delta) => (delta.type === "reasoning-delta" ? [delta.text] : [])).join("");
  const expected = (reply.reasoning ?? []).flatMap((part) => (part.type === "reasoning" ? [part.text] : [])).join("");
  if (reasoning !== expected)
    problems.push(`reasoning deltas ${JSON.stringify(reasoning)} != ${JSON.stringify(expected)}`);
  const calls = new Map<number, { id?: string; name?: string; args: string }>();
  for (const delta of deltas) {
    if (delta.type !== "tool-call-delta") continue;
    const call = calls.get(delta.index) ?? { args: "" };
    calls.set(delta.index, {
      ...call,
      ...(delta.id === undefined ? {} : { id: delta.id }),
      ...(delta.name === undefined ? {} : { name: delta.name }),
      args: call.args + delta.argsText,
    });
  }
  if (calls.size !== reply.toolCalls.length) problems.push(`${calls.size} streamed calls != ${reply.toolCalls.length}`);
  for (const [index, call] of reply.toolCalls.entries()) {
    const streamed = calls.get(index);
    const args = streamed?.args === "" ? "{}" : (streamed?.args ?? "");
    const same =
      streamed?.id === call.id &&
      streamed.name === call.name &&
      sameJson(args, call.rawArgs ?? JSON.stringify(call.args));
    if (!same)
      problems.push(`call ${index} streamed as ${JSON.stringify(streamed)}, replied as ${JSON.stringify(call)}`);
  }
  return problems;
}

function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return a === b;
  }
}
