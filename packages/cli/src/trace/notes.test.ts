import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../core-api.js";
import type { FoldStep } from "./log-fold.js";
import { notesOf } from "./notes.js";

const lost = (name: string) => `ERROR: the result of ${name} was lost: the run was interrupted while it ran.`;

/** Entries with only what notes read: the event, its time, the state after it. */
function entries(events: readonly [string, Partial<StoredEvent>, string?][]): FoldStep[] {
  const start = Date.parse("2026-12-02T12:00:00.000Z");
  return events.map(([at, event, state = "agent.executingTools.runningTools"], seq) => ({
    event: { seq, at: new Date(start + Number(at)).toISOString(), ...event } as StoredEvent,
    moves: [],
    messages: [],
    state,
    steps: 1,
    tokens: 10,
    turn: 1,
    waitingFor: [],
    final: false,
  }));
}

describe("notesOf", () => {
  it("says how long after the stop each call lost in it was resumed, not the time between two lost results", () => {
    const notes = notesOf(
      entries([
        ["0", { type: "tool.started", callId: "a", name: "slow" }],
        ["5", { type: "tool.started", callId: "b", name: "slower" }],
        ["60000", { type: "tool.finished", callId: "a", content: lost("slow") }],
        ["60003", { type: "tool.finished", callId: "b", content: lost("slower") }],
      ]),
      [],
    );
    expect(notes.get(2)?.map((note) => note.text)).toEqual([
      "interrupted: the process stopped while slow [a] ran; resumed 60.0s later",
    ]);
    expect(notes.get(3)?.map((note) => note.text)).toEqual([
      "interrupted: the process stopped while slower [b] ran; resumed 60.0s later",
    ]);
  });

  it("marks a pause only where the run waited for decisions alone, and a turn where the user wrote again", () => {
    const waiting = [{ id: "m1", name: "send_report", args: {} }];
    const steps = entries([
      ["0", { type: "model.replied" }, "agent.executingTools.awaitingDecision"],
      ["180000", { type: "approval.decided", callId: "m1", approved: true }],
      ["180001", { type: "run.finished" }, "agent.done"],
      ["190000", { type: "user.messaged", content: "and?" }, "agent.callingModel"],
    ]);
    const paused = { ...steps[0], waitingFor: waiting } as FoldStep;
    const notes = notesOf([paused, ...steps.slice(1)], []);
    expect(notes.get(1)?.map((note) => [note.kind, note.text])).toEqual([
      ["pause", "paused 3m00s for a decision on m1 (send_report)"],
    ]);
    expect(notes.get(3)?.map((note) => note.kind)).toEqual(["turn"]);
  });

  it("reads a lost result from tool.finished's failure, not from its text", () => {
    const notes = notesOf(
      entries([
        ["0", { type: "run.started", schemaVersion: 4 }],
        ["1", { type: "tool.started", callId: "a", name: "slow" }],
        ["60000", { type: "tool.finished", callId: "a", content: "ERROR: gone", isError: true, failure: "lost" }],
        ["60001", { type: "tool.finished", callId: "b", content: lost("slow"), isError: true, failure: "threw" }],
      ]),
      [],
    );
    expect(notes.get(2)?.map((note) => note.text)).toEqual([
      "interrupted: the process stopped while slow [a] ran; resumed 60.0s later",
    ]);
    expect(notes.get(3)).toBeUndefined();
  });
});
