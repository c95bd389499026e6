import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../core-api.js";
import { traceStatus, viewStatus } from "./run-status.js";
import { traceRun } from "./run-trace.js";

const GOLDEN = join(import.meta.dirname, "..", "..", "..", "core", "test", "fixtures", "golden");

/** The first `count` events of a golden log (a prefix is a log killed there: no hash changes). */
function prefix(name: string, count: number): StoredEvent[] {
  const lines = readFileSync(join(GOLDEN, `${name}.jsonl`), "utf8")
    .trim()
    .split("\n");
  return lines.slice(0, count).map((line) => JSON.parse(line) as StoredEvent);
}

describe("viewStatus", () => {
  it("a logged end, a refused log and a pause are named as they are", () => {
    expect(viewStatus({ ended: "guardrail_tripped" })).toBe("guardrail_tripped");
    expect(viewStatus({ refused: "line 1 is not JSON" })).toBe("refused");
    expect(traceStatus(traceRun(prefix("v1-safeguards-approval", 5), "v1-safeguards-approval"))).toBe(
      "awaiting_approval",
    );
  });

  it("a failed call with a retry or a fallback model left is unfinished, not model_failed", () => {
    // v4-retries: retry 1 attempt, one fallback model. #1 fails model 0 (a retry is left: retryWait).
    expect(traceStatus(traceRun(prefix("v4-retries", 2), "v4-retries"))).toBe("unfinished");
    const trace = traceRun(prefix("v4-retries", 2), "v4-retries");
    expect(trace.state).toMatch(/retryWait$/);
  });

  it("a failure of the last model with nothing left to try is model_failed", () => {
    const events = prefix("v4-retries", 2);
    const [, failed] = events;
    if (failed?.type !== "model.failed") throw new Error("v4-retries #1 is no longer a failed call");
    const trace = traceRun(events, "v4-retries");
    const last = { ...failed, model: 1, retryable: false };
    const base = { result: null, waiting: [], settings: trace.settings };
    expect(viewStatus({ ...base, state: "agent.callingModel", last })).toBe("model_failed");
    // The run's own model failed and a fallback is left: the run goes on with it.
    expect(viewStatus({ ...base, state: "agent.callingModel", last: { ...last, model: 0 } })).toBe("unfinished");
    // Another event after the failure: the run went on.
    expect(viewStatus({ ...base, state: "agent.callingModel", last: prefix("v4-retries", 3)[2] })).toBe("unfinished");
  });
});
