import { describe, expect, it } from "vitest";
import type { ToolCall } from "../data/types.js";
import { CallBatch } from "./call-batch.js";

const calls: ToolCall[] = ["a", "b", "c", "d"].map((id) => ({ id, name: "t", args: {} }));
const states = (batch: CallBatch) => calls.map((_, index) => batch.stateOf(index));

describe("CallBatch", () => {
  it("starts with every call waiting but the refused ones, which are answered with their observation", () => {
    const batch = CallBatch.of(calls, new Map([[1, "ERROR: no"]]), calls.length);
    expect(states(batch)).toEqual(["waiting", "answered", "waiting", "waiting"]);
    expect(batch.contentOf(1)).toBe("ERROR: no");
    expect(batch.nextToEnter()).toBe(0);
    expect(batch.skipFrom(1)).toBe(2);
  });

  it("moves calls forward: entered (deciding or running), approved, answered; the counters follow", () => {
    let batch = CallBatch.of(calls, new Map(), calls.length);
    batch = batch.apply([
      { kind: "enter", index: 0, deciding: true },
      { kind: "enter", index: 1, deciding: false },
    ]);
    expect(states(batch)).toEqual(["deciding", "running", "waiting", "waiting"]);
    expect([batch.next, batch.inProgress, batch.running]).toEqual([2, 2, 1]);
    batch = batch.apply([{ kind: "approve", index: 0 }]);
    expect([batch.inProgress, batch.running]).toEqual([2, 2]);
    batch = batch.apply([{ kind: "answer", index: 1, content: "b!" }]);
    expect(states(batch)).toEqual(["running", "answered", "waiting", "waiting"]);
    expect([batch.inProgress, batch.running, batch.contentOf(1)]).toEqual([1, 1, "b!"]);
    // A denial answers a call that never ran.
    batch = batch
      .apply([{ kind: "enter", index: 2, deciding: true }])
      .apply([{ kind: "answer", index: 2, content: "no" }]);
    expect([batch.inProgress, batch.running]).toEqual([1, 1]);
  });

  it("finds a call by id in a given state, the first of several with one id", () => {
    const twins: ToolCall[] = [
      { id: "x", name: "t", args: {} },
      { id: "x", name: "t", args: {} },
    ];
    let batch = CallBatch.of(twins, new Map(), 2).apply([{ kind: "enter", index: 0, deciding: false }]);
    expect(batch.find("x", "running")).toBe(0);
    expect(batch.find("x", "waiting")).toBe(1);
    batch = batch.apply([{ kind: "answer", index: 0, content: "" }]);
    expect(batch.find("x", "running")).toBe(-1);
    expect(batch.find("y", "waiting")).toBe(-1);
  });

  it("is a value: a change never shows in the batch it was made from, however far apart", () => {
    const start = CallBatch.of(calls, new Map(), calls.length);
    const one = start.apply([{ kind: "enter", index: 0, deciding: false }]);
    const two = one.apply([{ kind: "answer", index: 0, content: "first" }]);
    expect(states(start)).toEqual(["waiting", "waiting", "waiting", "waiting"]);
    expect(one.stateOf(0)).toBe("running");
    expect(two.contentOf(0)).toBe("first");
    // A change to an older batch (a fork) starts a lineage of its own.
    const fork = one.apply([{ kind: "answer", index: 0, content: "other" }]);
    expect([two.contentOf(0), fork.contentOf(0), one.contentOf(0)]).toEqual(["first", "other", undefined]);
    const forkOfStart = start.apply([{ kind: "enter", index: 3, deciding: true }]);
    expect(states(forkOfStart)).toEqual(["waiting", "waiting", "waiting", "deciding"]);
    expect(states(two)).toEqual(["answered", "waiting", "waiting", "waiting"]);
  });

  it("moves appended forward only through apply, and lists calls in a state from there on", () => {
    let batch = CallBatch.of(calls, new Map(), calls.length).apply([
      { kind: "enter", index: 0, deciding: false },
      { kind: "enter", index: 1, deciding: true },
      { kind: "enter", index: 2, deciding: true },
    ]);
    expect(batch.indexesIn("deciding")).toEqual([1, 2]);
    batch = batch.apply([{ kind: "answer", index: 0, content: "" }], 1);
    expect(batch.appended).toBe(1);
    expect(batch.indexesIn("running")).toEqual([]);
    expect(batch.toJSON()).toMatchObject({ next: 3, appended: 1 });
  });
});
