import { asks, final, MemoryEventStore, ToolRegistry, toolCall } from "@agentloop/core";
import { parseEventLog } from "@agentloop/core/store";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentWorkflow } from "../src/index.js";
import { stepModel } from "./support/in-process.js";
import { type InProcessHarness, openInProcess } from "./support/in-process-harness.js";

// The calls of one reply run at once: here the first call finishes after the second. Their events
// reach the log in the order they finished; then the next model call fails once, so a new
// execution replays the journal and must take them in that same order again (the mirror refuses a
// log that differs from what it appended, and the workflow's own log is the new execution's).

let fastDone = () => {};
const fastDid = new Promise<void>((resolve) => {
  fastDone = resolve;
});
const runs: string[] = [];
const registry = new ToolRegistry();
registry.register("slow", "Finishes after fast.", { type: "object" }, async () => {
  runs.push("slow");
  await fastDid;
  return "slow";
});
registry.register(
  "fast",
  "Finishes at once.",
  { type: "object" },
  () => {
    runs.push("fast");
    fastDone();
    return "fast";
  },
  { idempotent: true },
);

const script = stepModel([asks(toolCall("s", "slow"), toolCall("f", "fast")), final("Both done.")]);
let failed = false;
const store = new MemoryEventStore();
const parallel = agentWorkflow({
  name: "parallel",
  registry,
  store,
  modelRetry: { initialRetryInterval: 10 },
  model: (messages, tools, options) => {
    if (messages.length > 2 && !failed) {
      failed = true;
      throw new Error("the provider is busy");
    }
    return script(messages, tools, options);
  },
});

describe("the calls of one reply, outstanding at once", () => {
  let restate: InProcessHarness;

  beforeAll(async () => {
    restate = await openInProcess([parallel]);
  }, hangGuard(60_000));

  afterAll(async () => {
    await restate?.close();
  });

  it("all run at once, are answered in the order they finish, and a new execution replays that order", async () => {
    const run = restate.run("parallel", "both-1");
    await run.workflowSubmit({ task: "Run both." });
    const result = await run.workflowAttach();

    expect(result).toMatchObject({ status: "done", answer: "Both done.", steps: 2 });
    expect(failed).toBe(true);
    expect(runs.sort()).toEqual(["fast", "slow"]);
    const log = await store.read("both-1");
    const finished = log.flatMap((event) => (event.type === "tool.finished" ? [event.callId] : []));
    expect(finished).toEqual(["f", "s"]);
    // The messages keep call order, whatever order the calls finished in.
    const answered = result.messages.flatMap((message) => (message.role === "tool" ? [message.toolCallId] : []));
    expect(answered).toEqual(["s", "f"]);
    expect(parseEventLog("both-1", await run.events())).toEqual(log);
  });
});
