import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agentTool, final, type Model, replayRun, resumeAgent, scriptedModel, ToolRegistry } from "../../src/index.js";
import { parseEventLog } from "../../src/store.js";
import { JsonlEventStore } from "../../src/stores/jsonl-store.js";

// Golden logs of schema 4, written once and never regenerated: a parent whose call r1 ran a
// child; the child's send_email waited for a decision, the tree paused, and was resumed with
// the decision for "r1/c2".

const GOLDEN = join(import.meta.dirname, "..", "fixtures", "golden");
const PARENT = "v4-agent-tree";
const CHILD = "v4-agent-tree.r1";
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function goldenStore(): JsonlEventStore {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-golden-tree-"));
  dirs.push(dir);
  cpSync(GOLDEN, dir, { recursive: true });
  return new JsonlEventStore(dir);
}

const never: Model = () => {
  throw new Error("a logged reply was asked for again");
};

/** The registry the tree ran with; its tools' functions fail if they run again. */
function treeRegistry(child: Model): ToolRegistry {
  const inner = new ToolRegistry();
  const ranAgain = () => {
    throw new Error("a logged tool ran again");
  };
  const q = { type: "object", properties: { q: { type: "string" } }, required: ["q"] } as const;
  const to = { type: "object", properties: { to: { type: "string" } }, required: ["to"] } as const;
  inner.register("search", "Search the web.", q, ranAgain);
  inner.register("send_email", "Send an email.", to, ranAgain, { needsApproval: true });
  const options = { system: "You search and report." };
  const research = agentTool({
    name: "research",
    description: "Delegates research.",
    model: child,
    registry: inner,
    options,
  });
  return new ToolRegistry([research]);
}

describe("golden logs v4-agent-tree", () => {
  it("link parent and child both ways, and the parent's tokens hold the child's", async () => {
    const store = goldenStore();
    const parent = await store.read(PARENT);
    const child = await store.read(CHILD);
    expect(parent.map((e) => e.type)).toEqual([
      "run.started",
      "model.replied",
      "tool.started",
      "tool.finished",
      "model.replied",
      "run.finished",
    ]);
    expect(parent[2]).toMatchObject({ callId: "r1", childRunId: CHILD });
    expect(parent[3]).toMatchObject({ callId: "r1", childRunId: CHILD, tokens: 519, content: "Lima; ana has it." });
    expect(child[0]).toMatchObject({ parent: { runId: PARENT, callId: "r1" }, settings: { tokenBudget: 3754 } });
    expect(child.find((e) => e.type === "approval.decided")).toMatchObject({ callId: "c2", approved: true });
    expect(replayRun(child, { runId: CHILD }).result).toMatchObject({ status: "done", steps: 3, tokens: 519 });
    expect(replayRun(parent, { runId: PARENT }).result).toMatchObject({ status: "done", steps: 2, tokens: 803 });
  });

  it("resume of the finished parent gives its result back, asking no model and running no tool", async () => {
    const store = goldenStore();
    const result = await resumeAgent(PARENT, never, treeRegistry(never), { store });
    expect(result).toMatchObject({ status: "done", answer: "Lima, and ana was told.", tokens: 803 });
  });

  it("cut after the child's end, resume takes the child's logged result and never re-runs it", async () => {
    const store = goldenStore();
    const events = await store.read(PARENT);
    const dir = mkdtempSync(join(tmpdir(), "agentloop-golden-tree-cut-"));
    dirs.push(dir);
    const cut = new JsonlEventStore(dir);
    for (const event of events.slice(0, 3)) await cut.append(PARENT, event);
    for (const event of await store.read(CHILD)) await cut.append(CHILD, event);
    const parent = scriptedModel([final("Lima, and ana was told.")]);
    const result = await resumeAgent(PARENT, parent, treeRegistry(never), { store: cut });
    expect(result).toMatchObject({ status: "done", tokens: 803 });
    expect((await cut.read(PARENT))[3]).toMatchObject({ type: "tool.finished", tokens: 519, childRunId: CHILD });
  });

  it("refuses a child link in a log of an older schema", () => {
    const lines = readFileSync(join(GOLDEN, "v1-happy.jsonl"), "utf8").trim().split("\n");
    const values = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const linked = values.map((value) => (value.type === "tool.finished" ? { ...value, childRunId: "x" } : value));
    expect(() => parseEventLog("v1-happy", linked)).toThrow("names a child run, which is not part of schema before 4");
  });
});
