import { TerminalError } from "@restatedev/restate-sdk";
import { describe, expect, it } from "vitest";
import { readCancelRequest, readDecideRequest, readRunRequest } from "./run-request.js";

function refusal(read: () => unknown): TerminalError {
  try {
    read();
  } catch (error) {
    if (error instanceof TerminalError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("readRunRequest", () => {
  it("takes the task and the options, null limits meaning none", () => {
    expect(readRunRequest({ task: "t", maxSteps: 3, tokenBudget: null, repeatLimit: null, system: "s" })).toEqual({
      task: "t",
      options: {
        maxSteps: 3,
        system: "s",
        tokenBudget: Number.POSITIVE_INFINITY,
        repeatLimit: Number.POSITIVE_INFINITY,
      },
    });
    expect(readRunRequest({ task: "t" })).toEqual({ task: "t", options: {} });
  });

  it("refuses what is not a run request with a 400 that names the problem", () => {
    const cases: [unknown, string][] = [
      [null, "a run is submitted with an object { task, ...options }, got null"],
      [["t"], "a run is submitted with an object { task, ...options }, got an array"],
      [{ task: 1 }, "task must be a string, got number 1"],
      [{ task: "t", system: false }, "system must be a string, got boolean false"],
      [
        { task: "t", store: "x" },
        "unknown run option 'store' (known: task, system, history, maxSteps, tokenBudget, replyReserve, repeatLimit, onRepeatedCall, toolConcurrency)",
      ],
    ];
    for (const [value, message] of cases) {
      const error = refusal(() => readRunRequest(value));
      expect(error.message).toBe(message);
      expect(error.code).toBe(400);
    }
  });
});

describe("readDecideRequest and readCancelRequest", () => {
  it("take a decision and a cancellation as they come", () => {
    expect(readDecideRequest({ callId: "c1", approved: false, reason: "no" })).toEqual({
      callId: "c1",
      approved: false,
      reason: "no",
    });
    expect(readDecideRequest({ callId: "c1", approved: true })).toEqual({ callId: "c1", approved: true });
    expect(readCancelRequest(undefined)).toEqual({});
    expect(readCancelRequest(null)).toEqual({});
    expect(readCancelRequest({ reason: "late" })).toEqual({ reason: "late" });
  });

  it("refuse malformed ones with a 400", () => {
    expect(refusal(() => readDecideRequest("yes")).message).toBe(
      "decide takes an object { callId, approved, reason? }, got string yes",
    );
    expect(refusal(() => readDecideRequest({ callId: 7, approved: true })).message).toBe(
      "callId must be a string, got number 7",
    );
    expect(refusal(() => readDecideRequest({ callId: "c", approved: true, reason: 1 })).message).toBe(
      "reason must be a string, got number 1",
    );
    expect(refusal(() => readCancelRequest("now")).message).toBe(
      "cancel takes nothing or an object { reason }, got string now",
    );
    expect(refusal(() => readCancelRequest({ reason: 2 })).code).toBe(400);
  });
});
