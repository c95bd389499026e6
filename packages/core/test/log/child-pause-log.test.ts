import { describe, expect, it } from "vitest";
import {
  asks,
  EventLogError,
  final,
  MemoryEventStore,
  replayRun,
  runAgent,
  scriptedModel,
  ToolSchemaError,
  tool,
  toolCall,
} from "../../src/index.js";
import { chainHash, parseEventLog, runHashSeed } from "../../src/store.js";
import { PERFORMER } from "../../src/tools/index.js";
import { searchTree } from "../agent-tools/agent-tree-fixture.js";

type Json = Record<string, unknown>;

/** The log of a parent paused in its child's call r1: run.started, model.replied, tool.started, tool.paused. */
async function pausedLog(): Promise<Json[]> {
  const { registry } = searchTree([asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent.")]);
  const parent = scriptedModel([asks(toolCall("r1", "research", { task: "mail ana" })), final("Done.")]);
  const store = new MemoryEventStore();
  await runAgent("Mail ana.", parent, registry, { store, runId: "bad" });
  // As a file holds them: JSON, where Infinity is null.
  return (await store.read("bad")).map((event) => JSON.parse(JSON.stringify(event)) as Json);
}

/** The values with their seq and hash chain made anew, as a store would have written them. */
function sealed(values: Json[]): Json[] {
  let previous = runHashSeed("bad");
  return values.map((value, seq) => {
    const { hash: _hash, ...event }: Json = { ...value, seq };
    const hash = chainHash(previous, JSON.stringify(event));
    previous = hash;
    return { ...event, hash };
  });
}

function refusal(values: Json[]): string {
  try {
    replayRun(parseEventLog("bad", sealed(values)), { runId: "bad" });
  } catch (error) {
    expect(error).toBeInstanceOf(EventLogError);
    return (error as Error).message;
  }
  throw new Error("the log was taken");
}

describe("tool.paused and tool.resumed in a log", () => {
  it("a paused parent's log reads and replays (so each refusal below is the alteration's)", async () => {
    const log = await pausedLog();
    expect(log.map((event) => event.type)).toEqual(["run.started", "model.replied", "tool.started", "tool.paused"]);
    expect(replayRun(parseEventLog("bad", sealed(log)), { runId: "bad" }).context.childPauses).toHaveLength(1);
  });

  it("refuses a pause that lists nothing, or lists a call or a question of the wrong shape", async () => {
    const log = await pausedLog();
    const paused = log[3] as Json;
    expect(refusal([...log.slice(0, 3), { ...paused, pending: [] }])).toMatch(/lists nothing that waits/);
    expect(refusal([...log.slice(0, 3), { ...paused, pending: [{ id: "r1/e1" }] }])).toMatch(/pending call/);
    expect(refusal([...log.slice(0, 3), { ...paused, questions: [{ id: "q" }] }])).toMatch(/question without/);
    expect(refusal([...log.slice(0, 3), { ...paused, questions: undefined }])).toMatch(/lists of pending calls/);
  });

  it("refuses a resume without a call id, and a pause or a resume of a call that never started", async () => {
    const log = await pausedLog();
    expect(refusal([...log, { type: "tool.resumed", at: log[3]?.at }])).toMatch(/needs a callId string/);
    expect(refusal([...log.slice(0, 2), log[3] as Json])).toMatch(/has no tool.started for call 'r1'/);
    expect(refusal([...log, { type: "tool.resumed", callId: "r9", at: log[3]?.at }])).toMatch(/has no tool.started/);
  });

  it("refuses a resume of a call that is not paused, and a second pause of a paused call", async () => {
    const log = await pausedLog();
    const resumed = { type: "tool.resumed", callId: "r1", at: log[3]?.at };
    expect(refusal([...log.slice(0, 3), resumed])).toMatch(/does not fit the state/);
    expect(refusal([...log, log[3] as Json])).toMatch(/does not fit the state/);
  });

  it("refuses both events in a log of schema 3, which has no child runs", async () => {
    const log = await pausedLog();
    const started = log[0] as Json & { settings: Json };
    const older = [{ ...started, schemaVersion: 3 }, log[1] as Json, { ...(log[2] as Json), childRunId: undefined }];
    expect(refusal([...older, log[3] as Json])).toMatch(/not part of schema before 4/);
  });
});

describe("a tool's performer", () => {
  it("refuses a value under the performer's key that agentTool, askUserTool or memoryTools did not make", () => {
    const definition = {
      name: "odd",
      description: "Odd.",
      parameters: { type: "object", properties: {} },
      execute: () => "x",
      [PERFORMER]: { kind: "robot" },
    } as unknown as Parameters<typeof tool>[0];
    expect(() => tool(definition)).toThrow(ToolSchemaError);
    expect(() => tool(definition)).toThrow(
      "a tool's performer must be one agentTool(), askUserTool(), handoff() or memoryTools() made",
    );
  });
});
