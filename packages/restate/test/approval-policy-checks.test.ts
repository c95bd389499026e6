import { type Approver, asks, final, MemoryEventStore, toolCall } from "@agentloop/core";
import { parseEventLog } from "@agentloop/core/store";
import { makeMailRegistry } from "@agentloop/core/testing";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentWorkflow, agentWorkflow } from "../src/index.js";
import { stepModel } from "./support/in-process.js";
import { type InProcessHarness, openInProcess } from "./support/in-process-harness.js";

// One registry for every workflow here: `sent` counts each email really sent, across runs.
const { registry: mail, sent } = makeMailRegistry();

const store = new MemoryEventStore();
const MAIL = [asks(toolCall("e1", "send_email", { to: "ana@example.com" })), final("Done.")];

/** A workflow whose approval policy gives `decision`, as a policy written in plain JavaScript might. */
function policyGiving(name: string, decision: unknown): AgentWorkflow {
  const approve = (() => decision) as unknown as Approver;
  return agentWorkflow({ name, model: stepModel(MAIL), registry: mail, store, approve });
}

const BAD_DECISIONS = {
  "null-reason": { approved: true, reason: null },
  "number-reason": { approved: true, reason: 42 },
  "string-approved": { approved: "true" },
} as const;

describe("an approval policy's decision on a real Restate server", () => {
  let restate: InProcessHarness;

  beforeAll(async () => {
    const workflows = Object.entries(BAD_DECISIONS).map(([name, decision]) => policyGiving(name, decision));
    restate = await openInProcess([...workflows, policyGiving("sound", { approved: false, reason: "not today" })]);
  }, hangGuard(60_000));

  afterAll(async () => {
    await restate?.close();
  });

  it.each(Object.entries(BAD_DECISIONS))(
    "a malformed decision (%s) fails the run with core's message and logs nothing a reader refuses",
    async (name, decision) => {
      const run = restate.run(name, `${name}-1`);
      const mailed = sent.length;
      await run.workflowSubmit({ task: "Email Ana." });
      const expected = `the approver's decision on call 'e1' must be { approved: boolean, reason?: string }; got ${JSON.stringify(decision)}`;
      // The client's error quotes the server's JSON reply, so the decision's quotes come escaped there.
      await expect(run.workflowAttach()).rejects.toThrow(expected.split("; got")[0]);
      expect(sent.length).toBe(mailed);

      const mirrored = await store.read(`${name}-1`);
      expect(mirrored.some((event) => event.type === "approval.decided")).toBe(false);
      // The workflow's own log reads too: it can be replayed, forked and continued.
      expect(parseEventLog(`${name}-1`, await run.events())).toEqual(mirrored);
      expect(await run.status()).toMatchObject({ phase: "failed", error: expect.stringContaining(expected) });
    },
  );

  it("a sound decision is logged as given", async () => {
    const run = restate.run("sound", "sound-1");
    await run.workflowSubmit({ task: "Email Ana." });
    expect(await run.workflowAttach()).toMatchObject({ status: "done", answer: "Done." });
    const decisions = (await store.read("sound-1")).filter((event) => event.type === "approval.decided");
    expect(decisions).toMatchObject([{ callId: "e1", approved: false, reason: "not today" }]);
  });
});
