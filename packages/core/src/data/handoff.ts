import { tokensOfLength } from "./count-tokens.js";
import { messageChars, type Transcript } from "./transcript.js";
import type { Message } from "./types.js";

/**
 * What the agent that answers now is shown of the list: `messages` (its system prompt, then what
 * the handoff left it to see) followed by every message of the list from `from` on; `chars` is
 * the JSON length of `messages` and `fromChars` the list's at `from`, so the estimate stays O(1).
 */
export interface AgentShown {
  readonly messages: readonly Message[];
  readonly from: number;
  readonly chars: number;
  readonly fromChars: number;
}

/** What an agent is shown after a handoff: its system prompt and `messages` (the conversation, or what the filter left of it), then the list from `from` on. */
export function agentShown(system: string, messages: readonly Message[], transcript: Transcript): AgentShown {
  const shown = Object.freeze([Object.freeze({ role: "system" as const, content: system }), ...messages]);
  const chars = shown.reduce((sum, message) => sum + messageChars(message), 0);
  return { messages: shown, from: transcript.length, chars, fromChars: transcript.chars };
}

/** The messages the agent is shown of `transcript`, as a new frozen array (the list's own messages). */
export function agentMessages(transcript: Transcript, shown: AgentShown): readonly Message[] {
  const messages = [...shown.messages];
  for (let index = shown.from; index < transcript.length; index++) messages.push(transcript.items[index] as Message);
  return Object.freeze(messages);
}

/** Equals `countTokens(agentMessages(transcript, shown))`, in O(1). */
export function agentShownTokens(transcript: Transcript, shown: AgentShown): number {
  const length = shown.messages.length + transcript.length - shown.from;
  return tokensOfLength(shown.chars + transcript.chars - shown.fromChars + 2 + Math.max(0, length - 1));
}
