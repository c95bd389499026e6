import { scriptedModel } from "@agentloop/core";
import { describe, expect, it } from "vitest";
import { approveInANewProcess } from "../examples/scripted-resume.js";
import { stepScriptedModel } from "../src/index.js";

// The guide's sample on which scripted model to use for a run that is resumed with its models made again.
describe("scripted models across a resume", () => {
  it("scriptedModel starts over: the resumed child asks for the approved email again and the tree waits again", async () => {
    const trap = await approveInANewProcess(scriptedModel);
    expect(trap.status).toBe("awaiting_approval");
    expect(trap.sent).toEqual(["ana"]);
    expect(trap.pending).toHaveLength(1);
    expect(trap.pending[0]).toMatch(/^r1\//);
    expect(trap.pending[0]).not.toBe("r1/e1");
  });

  it("stepScriptedModel answers by step: the resumed child goes on to its answer and the tree ends", async () => {
    const fixed = await approveInANewProcess(stepScriptedModel);
    expect(fixed).toEqual({ status: "done", pending: [], sent: ["ana"] });
  });
});
