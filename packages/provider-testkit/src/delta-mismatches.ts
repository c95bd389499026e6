import type { AgentStreamEvent, ModelDelta, ModelReply } from "@agentloop/core";

/**
 * Where the deltas a run told (`runAgent`'s `onEvent`) fail to add up to the replies of their
 * steps (see `mismatches`), one sentence each, prefixed with the step.
 */
export function deltaMismatches(events: readonly AgentStreamEvent[]): string[] {
  // A reply is logged after its call's start: the step it answers is the last one started.
  let step = 0;
  return events.flatMap((event) => {
    if (event.type === "step-started") step = event.step;
    if (event.type !== "logged" || event.event.type !== "model.replied") return [];
    const deltas = events.filter(
      (candidate): candidate is ModelDelta & { step: number } => isDelta(candidate) && candidate.step === step,
    );
    return mismatches(event.event.reply, deltas).map((problem) => `step ${step}: ${problem}`);
  });
}

function isDelta(event: AgentStreamEvent): event is AgentStreamEvent & ModelDelta {
  return event.type === "text-delta" || event.type === "reasoning-delta" || event.type === "tool-call-delta";
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
