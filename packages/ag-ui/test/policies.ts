import { askUserTool, type Model, ModelError, type ModelReply, ToolRegistry } from "@agentloop/core";
import type { AgentOptions } from "@agentloop/core/machine";
import { asks, final, scriptedModel, toolCall } from "@agentloop/core/testing";
import { expect } from "vitest";

/** The policies a log cannot hold, in two servers: per-step control and compaction, and a fallback model. */
export const POLICIES = ["prepareStep and summarizer", "fallbackModels"] as const;
export type Policy = (typeof POLICIES)[number];

/**
 * The model's replies of a served conversation with every kind of turn: the first message looks
 * something up and asks to send an email (a pause for approval); the approval sends it and the
 * reply says so; the next message asks the user a question (a pause for an answer); the answer
 * gets its reply. Then a turn is cut off (its model call fails: see `cutOff`), and the next message
 * finishes it and gets the last reply.
 */
export const CONVERSATION: readonly ModelReply[] = [
  asks(toolCall("l1", "look_up", { topic: "Ana" })),
  asks(toolCall("e1", "send_email", { to: "ana@example.com" })),
  final("Sent."),
  asks(toolCall("q1", "ask_user", { question: "Where to?" })),
  final("Lima it is."),
  final("Noted."),
  final("Still here."),
];

/**
 * A served agent with `policy`: with `prepareStep and summarizer`, both count how often they are
 * asked (compaction is on at every step that has something to hide); with `fallbackModels`, the
 * run's own model is down, so every reply comes from the fallback. A turn that lost the policy
 * shows it: its count stays, or the run fails (a run started with `prepareStep`, or whose log
 * asks a fallback, refuses to go on without it).
 */
export function policiesServed(policy: Policy, script: readonly ModelReply[] = CONVERSATION) {
  const asked = { prepareStep: 0, summarizer: 0, down: 0 };
  const answers = scriptedModel(script);
  let cutting = false;
  /** The model that answers (the run's, or its fallback); its next call fails once `cutOff()` is called. */
  const scripted: Model = (messages, tools, options) => {
    if (cutting) {
      cutting = false;
      throw new ModelError("503 Service Unavailable", { messages: [], step: 1 });
    }
    return answers(messages, tools, options);
  };
  const down: Model = () => {
    asked.down++;
    throw new ModelError("the provider is overloaded", { messages: [], step: 1, retryable: true });
  };
  const summarizer: Model = () => {
    asked.summarizer++;
    return final("What was said before, in short.");
  };
  const options: AgentOptions =
    policy === "fallbackModels"
      ? { fallbackModels: [scripted] }
      : {
          prepareStep: () => {
            asked.prepareStep++;
            return undefined;
          },
          compaction: { triggerTokens: 1, keepRecent: 1, summarizer },
          tokenBudget: 100_000,
        };
  const sent: string[] = [];
  const registry = new ToolRegistry([askUserTool()]);
  registry.register("look_up", "Look something up.", { type: "object", properties: {} }, () => "found");
  registry.register(
    "send_email",
    "Send an email.",
    { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    ({ to }: { to: string }) => {
      sent.push(to);
      return `sent to ${to}`;
    },
    { needsApproval: true },
  );
  const model = policy === "fallbackModels" ? down : scripted;
  /**
   * Checks that the turn from `was` to `now` (copies of `asked`) was run with the policy; the first
   * turn has nothing to compact (`compacts: false`).
   */
  const expectUsed = (was: typeof asked, now: typeof asked = asked, compacts = true): void => {
    if (policy === "fallbackModels") expect(now.down).toBeGreaterThan(was.down);
    else {
      expect(now.prepareStep).toBeGreaterThan(was.prepareStep);
      if (compacts) expect(now.summarizer).toBeGreaterThan(was.summarizer);
    }
  };
  /** Makes the answering model's next call fail: the turn is cut off, the run left unfinished. */
  const cutOff = (): void => {
    cutting = true;
  };
  return { model, registry, options, asked, sent, expectUsed, cutOff };
}
