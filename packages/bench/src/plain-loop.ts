import { type AgentResult, countTokens, type Message, type Model, type ToolRegistry } from "@agentloop/core";

/**
 * The floor: the spec's loop in plain TypeScript with incremental token counting, the least any
 * harness with the same semantics can do per step.
 */
export async function plainLoop(
  task: string,
  system: string,
  model: Model,
  registry: ToolRegistry,
  maxSteps: number,
  tokenBudget: number,
): Promise<AgentResult> {
  const messages: Message[] = [
    { role: "system", content: system },
    { role: "user", content: task },
  ];
  const specs = registry.specs();
  const specsTokens = countTokens(specs);
  let chars = JSON.stringify(messages[0]).length + JSON.stringify(messages[1]).length;
  let spent = 0;
  const signal = new AbortController().signal;
  const append = (message: Message) => {
    messages.push(message);
    const length = JSON.stringify(message).length;
    chars += length;
    return length;
  };
  for (let step = 0; step < maxSteps; step++) {
    const prompt = specsTokens + Math.max(1, Math.floor((chars + 1 + messages.length) / 4));
    if (spent + prompt > tokenBudget)
      return { status: "token_budget", answer: null, steps: step, tokens: spent, messages };
    const reply = await model(messages, specs, { signal });
    const length = append({ role: "assistant", content: reply.content, toolCalls: reply.toolCalls });
    spent += prompt + Math.max(1, Math.floor(length / 4));
    if (reply.toolCalls.length === 0) {
      return { status: "done", answer: reply.content, steps: step + 1, tokens: spent, messages };
    }
    for (const call of reply.toolCalls) {
      const content = await registry.execute(call.name, call.args);
      append({ role: "tool", toolCallId: call.id, name: call.name, content });
    }
  }
  return { status: "step_limit", answer: null, steps: maxSteps, tokens: spent, messages };
}
