import { scriptedModel } from "@agentloop/core";
import { describe, expect, it, vi } from "vitest";
import { stepScriptedModel } from "../src/index.js";

// The guide's sample on which scripted model to use for a run resumed with its models made again
// (it prints what it shows when imported: kept out of the test's output).
async function sample() {
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  try {
    return await import("../examples/scripted-resume.js");
  } finally {
    log.mockRestore();
  }
}

describe("scripted models across a resume", () => {
  it("scriptedModel starts over: the resumed child asks for the approved email again, under a new id, and the tree waits again", async () => {
    const trap = await (await sample()).approveInANewProcess(scriptedModel);
    expect(trap.status).toBe("awaiting_approval");
    expect(trap.sent).toEqual(["ana"]);
    expect(trap.pending).toHaveLength(1);
    expect(trap.pending[0]).toMatch(/^r1\//);
    expect(trap.pending[0]).not.toBe("r1/e1");
  });

  it("stepScriptedModel answers by step: the resumed child goes on to its answer and the tree ends", async () => {
    const fixed = await (await sample()).approveInANewProcess(stepScriptedModel);
    expect(fixed).toEqual({ status: "done", pending: [], sent: ["ana"] });
  });
});
