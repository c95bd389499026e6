import { describe, expect, it } from "vitest";
import {
  asks,
  final,
  MemoryEventStore,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";

// Call ids come from the model. Ids that name Object.prototype's members must not pass for decisions.
const IDS = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

function riskyRegistry() {
  const ran: string[] = [];
  const registry = new ToolRegistry();
  registry.register("delete_all", "Delete everything.", { type: "object" }, () => ran.push("delete_all"), {
    needsApproval: true,
  });
  return { registry, ran };
}

describe("approval with call ids that are Object.prototype's names", () => {
  for (const id of IDS) {
    it(`a call with id '${id}' waits for a decision and does not run without one`, async () => {
      const { registry, ran } = riskyRegistry();
      const store = new MemoryEventStore();
      const script = [asks(toolCall(id, "delete_all")), final("Done.")];
      const paused = await runAgent("Clean up.", scriptedModel(script), registry, { store, runId: "r" });
      expect(paused.status).toBe("awaiting_approval");
      expect(paused.pendingApprovals?.map((call) => call.id)).toEqual([id]);
      expect(ran).toEqual([]);

      // A decision for a call that waits for none is refused; without one the run stays paused.
      await expect(
        resumeAgent("r", scriptedModel(script.slice(1)), registry, { store, decisions: { other: { approved: true } } }),
      ).rejects.toThrow(new RegExp(`call 'other' waits for no decision \\(calls that wait: '${id}'\\)`));
      const still = await resumeAgent("r", scriptedModel(script.slice(1)), registry, { store });
      expect(still.status).toBe("awaiting_approval");
      expect(ran).toEqual([]);

      const decisions = Object.fromEntries([[id, { approved: true }]]);
      const done = await resumeAgent("r", scriptedModel(script.slice(1)), registry, { store, decisions });
      expect(done.status).toBe("done");
      expect(ran).toEqual(["delete_all"]);
    });
  }
});
