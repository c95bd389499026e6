import type { Actor } from "xstate";
import type { AgentRequest } from "../../data/index.js";
import type { agentMachine } from "../../decide/index.js";
import type { DrivenMachine } from "./desk.js";
import { REQUEST_KINDS } from "./request-table.js";

const NONE: readonly AgentRequest[] = Object.freeze([]);
const KINDS: ReadonlySet<string> = new Set(REQUEST_KINDS);

/** The actor of a running `agentMachine`, as its driver sees it. */
export type AgentActor = Actor<typeof agentMachine>;

/**
 * An `agentMachine` actor as the run loop drives it: the requests it emits are kept until the loop
 * takes them (XState emits them while it takes an event, so they are there once `send` returns).
 * `pending` are the requests a restored snapshot already waits on; `onRequest` hears each emitted one.
 */
export function drivenMachine(
  actor: AgentActor,
  pending: readonly AgentRequest[] = [],
  onRequest?: () => void,
): DrivenMachine & { stop(): void } {
  let requests: AgentRequest[] = [...pending];
  const keep = (request: AgentRequest) => {
    requests.push(request);
    onRequest?.();
  };
  // One listener for everything the machine emits, not one per kind; what it keeps is what the
  // request table names.
  const subscription = actor.on("*", (emitted) => {
    if (KINDS.has(emitted.type)) keep(emitted as AgentRequest);
  });
  return {
    takeRequests: () => {
      if (requests.length === 0) return NONE;
      const taken = requests;
      requests = [];
      return taken;
    },
    snapshot: () => actor.getSnapshot(),
    send: (event) => actor.send(event),
    stop: () => {
      subscription.unsubscribe();
    },
  };
}
