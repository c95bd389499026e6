import { describe, expect, it } from "vitest";
import type { AgentResult, PendingQuestion, ToolCall } from "../data/index.js";
import { type ConversationAsk, type ConversationState, decideFollowOn, decideTurn } from "./conversation.js";
import type { LiveRun } from "./live-runs.js";
import { mayUse } from "./owner.js";
import { ServeRefusal } from "./served-errors.js";

const call: ToolCall = { id: "e1", name: "send", args: {} };
const question: PendingQuestion = { id: "q1", name: "ask_user", question: "Where to?" } as PendingQuestion;
const live = { runId: "c" } as LiveRun;
const result = { status: "done" } as AgentResult;

const STATES: Readonly<Record<ConversationState["kind"], ConversationState>> = {
  none: { kind: "none" },
  foreign: { kind: "foreign" },
  going: { kind: "going", live },
  held: { kind: "held", events: [] },
  ended: { kind: "ended", result, events: [] },
  waiting: { kind: "waiting", calls: [call], questions: [question], events: [] },
  "cut-off": { kind: "cut-off", open: [call], events: [] },
};
const ASKS: Readonly<Record<string, ConversationAsk>> = {
  message: { kind: "message", content: "Hi." },
  regenerate: { kind: "message", content: "Hi.", regenerate: true },
  decision: { kind: "resume", decisions: { e1: { approved: true } }, answers: {} },
  answer: { kind: "resume", decisions: {}, answers: { q1: "Lima" } },
  stranger: { kind: "resume", decisions: { e9: { approved: true } }, answers: {} },
  empty: { kind: "resume", decisions: {}, answers: {} },
  read: { kind: "read" },
};

/** What each ask comes to in each state: a step's kind, or a refusal's status. */
const TABLE: Readonly<Record<string, Readonly<Record<ConversationState["kind"], string | number>>>> = {
  message: {
    none: "start",
    foreign: 409,
    going: 409,
    held: 409,
    ended: "continue",
    waiting: 409,
    "cut-off": "finish-then-continue",
  },
  regenerate: {
    none: "start",
    foreign: 409,
    going: 409,
    held: 409,
    ended: "continue",
    waiting: 409,
    "cut-off": "finish",
  },
  decision: { none: 404, foreign: 404, going: 409, held: 409, ended: 409, waiting: "resume", "cut-off": 409 },
  answer: { none: 404, foreign: 404, going: 409, held: 409, ended: 409, waiting: "resume", "cut-off": 409 },
  stranger: { none: 404, foreign: 404, going: 409, held: 409, ended: 409, waiting: 409, "cut-off": 409 },
  empty: { none: 404, foreign: 404, going: 409, held: 409, ended: 409, waiting: 409, "cut-off": 409 },
  read: {
    none: 404,
    foreign: 404,
    going: "follow",
    held: "follow-log",
    ended: "finish",
    waiting: "finish",
    "cut-off": "finish",
  },
};

describe("decideTurn: the one table every front door answers by", () => {
  it("decides every ask in every state as the table says", () => {
    const seen: Record<string, Record<string, string | number>> = {};
    for (const [name, ask] of Object.entries(ASKS)) {
      seen[name] = {};
      for (const [kind, state] of Object.entries(STATES)) {
        const step = decideTurn("chat", "c", state, ask);
        (seen[name] as Record<string, string | number>)[kind] = step instanceof ServeRefusal ? step.status : step.kind;
      }
    }
    expect(seen).toEqual(TABLE);
  });

  it("answers another tenant's run word for word as a run that does not exist, for every ask but a new message", () => {
    for (const ask of Object.values(ASKS)) {
      if (ask.kind === "message") continue;
      expect(decideTurn("chat", "c", STATES.foreign, ask)).toEqual(decideTurn("chat", "c", STATES.none, ask));
    }
    const taken = decideTurn("chat", "c", STATES.foreign, ASKS.message as ConversationAsk);
    expect(taken).toBeInstanceOf(ServeRefusal);
    expect((taken as ServeRefusal).message).toBe(
      "chat 'c' cannot be started: the id is taken; start the conversation under another",
    );
  });

  it("names what a waiting run waits for when a request gives something else", () => {
    const refused = decideTurn("thread", "t", STATES.waiting, ASKS.stranger as ConversationAsk) as ServeRefusal;
    expect(refused.message).toBe(
      "thread 't' has nothing waiting on 'e9': it waits for decisions on 'e1' and answers to 'q1'",
    );
  });
});

describe("decideFollowOn: a conversation kept as a chain of runs", () => {
  it("starts the next run with the ended one's transcript, and refuses while the one before is open", () => {
    const messages = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi." },
      { role: "assistant", content: "Hello.", toolCalls: [] },
    ] as AgentResult["messages"];
    const ended: ConversationState = { kind: "ended", result: { ...result, messages }, events: [] };
    const seen = Object.fromEntries(
      Object.entries({ ...STATES, ended }).map(([kind, before]) => {
        const step = decideFollowOn("task", "c.2", STATES.none, { runId: "c.1", state: before }, "More.");
        return [kind, step instanceof ServeRefusal ? step.status : step];
      }),
    );
    expect(seen).toEqual({
      none: { kind: "start", content: "More." },
      ended: { kind: "start", content: "More.", history: messages.slice(1) },
      foreign: 409,
      going: 409,
      held: 409,
      waiting: 409,
      "cut-off": 409,
    });
    const taken = decideFollowOn("task", "c.2", STATES.ended, { runId: "c.1", state: ended }, "More.");
    expect(taken).toBeInstanceOf(ServeRefusal);
  });
});

describe("mayUse: who may use a run, failing closed", () => {
  it("an owned run by its tenant's requests only; a run of no one's by requests without a principal only", () => {
    const acme = { tenant: "acme" };
    expect(mayUse({ tenant: "acme", user: "bo" }, { tenant: "acme", user: "ana" })).toBe(true);
    expect(mayUse({ tenant: "globex" }, acme)).toBe(false);
    expect(mayUse(undefined, acme)).toBe(false);
    expect(mayUse(acme, undefined)).toBe(false);
    expect(mayUse(undefined, undefined)).toBe(true);
  });
});
