import type { Message, Model, ModelReply } from "@agentloop/core";

/**
 * A scripted model for durable runs: the reply is the script's entry for the step (the number of
 * assistant messages in the list it is shown), not for the number of times it was called, so a
 * process that restarts, or a step that Restate retries, gets the same reply again. Throws when
 * the run asks for more steps than the script has.
 */
export function stepScriptedModel(replies: readonly ModelReply[]): Model {
  const script = [...replies];
  return (messages: readonly Message[]): ModelReply => {
    const step = messages.filter((message) => message.role === "assistant").length;
    const reply = script[step];
    if (reply === undefined) {
      throw new Error(`script ran out: the run asked for step ${step + 1}, the script has ${script.length} replies`);
    }
    return reply;
  };
}
