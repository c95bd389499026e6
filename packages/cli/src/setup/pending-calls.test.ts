import { describe, expect, it } from "vitest";
import { checkDecisions } from "./pending-calls.js";

const call = (id: string, name = "send_email") => ({ id, name, args: {} });

describe("checkDecisions", () => {
  it("takes decisions for waiting calls, and chained ids under a call cut off in a child run", () => {
    expect(() => checkDecisions([call("e1")], { e1: { approved: true } })).not.toThrow();
    expect(() => checkDecisions([], { "r1/e1": { approved: true } }, [call("r1", "research")])).not.toThrow();
  });

  it("refuses an id no call waits on, chained under no running call", () => {
    expect(() => checkDecisions([call("e1")], { "r2/e1": { approved: true } }, [call("r1", "research")])).toThrow(
      "call 'r2/e1' does not wait for a decision; the calls that wait: e1 (send_email)",
    );
  });
});
