import type { AgentRequest, AgentShown, HandoffEvent, ToolCall } from "../data/index.js";
import { agentShown, messagesOf } from "../data/index.js";
import type { AgentContext } from "./agent-context.js";
import { type HandoffState, profileOf } from "./handoff-state.js";

/** The observation of the call that hands over. */
export function transferredObservation(to: string): string {
  return `transferred to ${to}`;
}

/**
 * The handoff calls of a reply: the first one offered takes the conversation (its observation is
 * `transferred to <name>` at once), every later one is answered with an `ERROR:` and not made;
 * the reply's other calls are left to run as usual.
 */
export function planHandoff(
  state: HandoffState,
  calls: readonly ToolCall[],
  allowed: ReadonlySet<string> | null,
): { results: Map<number, string>; refusals: Map<number, string>; pending: HandoffState["pending"] } {
  const results = new Map<number, string>();
  const refusals = new Map<number, string>();
  const { transfers } = profileOf(state, state.agent);
  let pending: HandoffState["pending"] = null;
  if (transfers.length === 0) return { results, refusals, pending };
  for (const [index, call] of calls.entries()) {
    const transfer = transfers.find((each) => each.tool === call.name);
    if (transfer === undefined || (allowed !== null && !allowed.has(call.name))) continue;
    if (pending === null) {
      pending = { call, to: transfer.to };
      results.set(index, transferredObservation(transfer.to));
      continue;
    }
    refusals.set(
      index,
      `ERROR: only one handoff is made per reply: call '${pending.call.id}' already gives the conversation to ${pending.to}, so this call to ${call.name} was not made.`,
    );
  }
  return { results, refusals, pending };
}

/** Whether the reply asked for a handoff and every one of its calls has its tool message: the handoff is made now. */
export function isHandoffDue({ handoffs, batch }: AgentContext): boolean {
  return handoffs?.pending != null && (batch === null || batch.appended === batch.calls.length);
}

/** The request for the handoff the reply asked for. */
export function handoffRequest(context: AgentContext): AgentRequest {
  const state = context.handoffs as HandoffState;
  const { call, to } = state.pending as NonNullable<HandoffState["pending"]>;
  return { type: "handOff", call, from: state.agent, to };
}

/** Whether `handoff` is the one the machine waits for. */
export function isAwaitedHandoff({ handoffs }: AgentContext, event: HandoffEvent): boolean {
  const pending = handoffs?.pending;
  return (
    pending != null && pending.call.id === event.callId && pending.to === event.to && handoffs?.agent === event.from
  );
}

/**
 * The conversation goes to `event.to`: its tools (and how each is treated), its reply reserve and
 * price, and what it is shown — its system prompt, then what its filter left of the list (or the
 * list) — from the next model call on. What the providers counted of the last agent's prompts no
 * longer tells anything of the next one's.
 */
export function recordHandoff(context: AgentContext, event: HandoffEvent, specsTokens: number): Partial<AgentContext> {
  const state = context.handoffs as HandoffState;
  const profile = profileOf(state, event.to);
  const { transcript } = context;
  const conversation = event.messages ?? messagesOf(transcript).slice(1);
  const changes: Partial<AgentContext> = {
    handoffs: {
      ...state,
      agent: event.to,
      pending: null,
      shown: agentShown(profile.system, conversation, transcript),
      turns: [...state.turns, { at: transcript.length, agent: event.to }],
    },
    specs: profile.tools,
    specsTokens,
    approvalRequired: profile.approvalRequired ?? [],
    idempotentTools: profile.idempotentTools ?? [],
    repeatableTools: profile.repeatableTools ?? [],
    askTools: profile.askTools ?? [],
    replyReserve: profile.replyReserve ?? context.replyReserve,
    ...(context.promptCounts === null ? {} : { promptCounts: [] }),
  };
  const { prices } = context;
  if (prices === null || profile.price === undefined) return changes;
  return { ...changes, prices: { ...prices, models: [profile.price, ...prices.models.slice(1)] } };
}

/** The agent answering and what it is shown, for a `callModel` request of a run with handoffs. */
export function agentOfRequest(state: HandoffState): { readonly name: string; readonly shown: AgentShown | null } {
  return { name: state.agent, shown: state.shown };
}
