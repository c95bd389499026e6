import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../data/index.js";
import { EventLogError } from "./event-log-error.js";
import { lastBrokenRow } from "./event-store.js";

const intact = (count: number): StoredEvent[] => Array.from({ length: count }, () => ({}) as StoredEvent);
const rows = ["r0", "r1", "r2"];

describe("lastBrokenRow", () => {
  it("gives the last row when the error is about it alone", () => {
    const error = new EventLogError("broken", { runId: "r", position: 2, intact: intact(2) });
    expect(lastBrokenRow(error, rows)).toBe("r2");
  });

  it("throws again an error about an earlier row, one with fewer rows intact, or any other error", () => {
    const earlier = new EventLogError("broken", { runId: "r", position: 1, intact: intact(1) });
    expect(() => lastBrokenRow(earlier, rows)).toThrow(earlier);
    const lost = new EventLogError("broken", { runId: "r", position: 2, intact: intact(1) });
    expect(() => lastBrokenRow(lost, rows)).toThrow(lost);
    const other = new Error("disk");
    expect(() => lastBrokenRow(other, rows)).toThrow(other);
    expect(() => lastBrokenRow(new EventLogError("empty", { runId: "r", position: -1 }), [])).toThrow("empty");
  });
});
