import { describe, expect, it } from "vitest";
import { agentTool, type Model, replayRun, resumeAgent, ToolRegistry } from "../../src/index.js";
import { goldenStore, never } from "./golden-store.js";

// Golden logs of schema 4, written once and never regenerated: the parent's call m1 ran a child
// whose send_email waited for a decision; the parent logged the pause (`tool.paused`, the child's
// call by its chained id m1/e1), was resumed with the decision for it (`tool.resumed`), and its
// child went on from its own log to the answer.

const PARENT = "v4-child-paused";
const CHILD = "v4-child-paused.m1";

/** The registry the tree ran with; its tools' functions fail if they run again. */
function treeRegistry(child: Model): ToolRegistry {
  const inner = new ToolRegistry();
  const to = { type: "object", properties: { to: { type: "string" } }, required: ["to"] } as const;
  inner.register(
    "send_email",
    "Send an email.",
    to,
    () => {
      throw new Error("a logged tool ran again");
    },
    { needsApproval: true },
  );
  const options = { system: "You send mail." };
  return new ToolRegistry([
    agentTool({ name: "mailer", description: "Sends mail for you.", model: child, registry: inner, options }),
  ]);
}

describe("golden logs v4-child-paused", () => {
  it("log the pause of the parent's call with what waits below it, and its resume", async () => {
    const store = goldenStore();
    const parent = await store.read(PARENT);
    expect(parent.map((e) => e.type)).toEqual([
      "run.started",
      "model.replied",
      "tool.started",
      "tool.paused",
      "tool.resumed",
      "tool.finished",
      "model.replied",
      "run.finished",
    ]);
    expect(parent[3]).toMatchObject({
      type: "tool.paused",
      callId: "m1",
      pending: [{ id: "m1/e1", name: "send_email", args: { to: "ana" } }],
      questions: [],
    });
    const child = await store.read(CHILD);
    expect(child.map((e) => e.type)).toContain("approval.decided");
  });

  it("replay to the paused state at the pause, and to the recorded result at the end", async () => {
    const parent = await goldenStore().read(PARENT);
    const paused = replayRun(parent.slice(0, 4));
    expect(paused.snapshot.matches({ executingTools: "awaitingDecision" })).toBe(true);
    expect(paused.context.childPauses.map((each) => each.pending.map((call) => call.id))).toEqual([["m1/e1"]]);
    const resumed = replayRun(parent.slice(0, 5));
    expect(resumed.snapshot.matches({ executingTools: "runningTools" })).toBe(true);
    expect(resumed.context.childPauses).toEqual([]);
    const replay = replayRun(parent);
    expect(replay.result).toMatchObject({ status: "done", answer: "Ana has been told.", steps: 2, tokens: 480 });
  });

  it("resumed as they are, give the result again: no model is called and no tool runs", async () => {
    const result = await resumeAgent(PARENT, never, treeRegistry(never), { store: goldenStore() });
    expect(result).toMatchObject({ status: "done", answer: "Ana has been told." });
  });
});
