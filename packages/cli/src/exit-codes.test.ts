import { AGENT_STATUSES } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { EXIT_CODE_HELP, EXIT_CODES, exitCodeOf } from "./exit-codes.js";

describe("exit codes", () => {
  it("every status core lists has its own code, named in the help", () => {
    const codes = AGENT_STATUSES.map((status) => exitCodeOf({ status }));
    expect(codes).not.toContain(EXIT_CODES.other);
    expect(new Set(codes).size).toBe(AGENT_STATUSES.length);
    for (const status of AGENT_STATUSES) expect(EXIT_CODE_HELP).toContain(` ${status}`);
  });

  it("a status from a newer core gets the code for another status", () => {
    expect(exitCodeOf({ status: "paused_forever" as (typeof AGENT_STATUSES)[number] })).toBe(EXIT_CODES.other);
  });
});
