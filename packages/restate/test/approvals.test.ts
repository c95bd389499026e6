import { asks, final, MemoryEventStore, type ToolRegistry, toolCall } from "@agentloop/core";
import { makeMailRegistry } from "@agentloop/core/testing";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentWorkflow, type RunStatus } from "../src/index.js";
import { waitUntil } from "../src/testing/wait-until.js";
import { stepModel } from "./support/in-process.js";
import { type InProcessHarness, openInProcess } from "./support/in-process-harness.js";

const stopped: string[] = [];
const office = makeMailRegistry();
const { sent } = office;

/** The mail tool (its calls need approval), with a tool that runs until the run's signal aborts. */
function officeRegistry(registry: ToolRegistry = makeMailRegistry().registry): ToolRegistry {
  registry.register(
    "wait_forever",
    "Wait.",
    { type: "object", properties: { ref: { type: "string" } }, required: ["ref"] },
    ({ ref }: { ref: string }, { signal }: { signal: AbortSignal }) =>
      new Promise((_, reject) =>
        signal.addEventListener("abort", () => {
          stopped.push(ref);
          reject(new Error("stopped"));
        }),
      ),
  );
  return registry;
}

const MAIL = [
  asks(
    toolCall("e1", "send_email", { to: "ana@example.com" }),
    toolCall("e2", "send_email", { to: "all@example.com" }),
  ),
  final("Done."),
];
const store = new MemoryEventStore();
const mail = agentWorkflow({ name: "mail", model: stepModel(MAIL), registry: officeRegistry(office.registry), store });
const policy = agentWorkflow({
  name: "policy",
  model: stepModel(MAIL),
  registry: officeRegistry(),
  store,
  // Mail to one person is fine; anything else is for a person to decide.
  approve: (call) => (call.args.to === "ana@example.com" ? { approved: true } : undefined),
});
const WAIT = [asks(toolCall("w1", "wait_forever", { ref: "w" })), final("Never.")];
const waiting = agentWorkflow({ name: "waiting", model: stepModel(WAIT), registry: officeRegistry(), store });

describe("approval and cancellation on a real Restate server", () => {
  let restate: InProcessHarness;

  beforeAll(async () => {
    restate = await openInProcess([mail, policy, waiting]);
  }, hangGuard(60_000));

  afterAll(async () => {
    await restate?.close();
  });

  async function statusWhen(workflow: string, runId: string, holds: (status: RunStatus) => boolean) {
    const run = restate.run(workflow, runId);
    return waitUntil(
      async () => {
        const status = await run.status();
        return holds(status) ? status : null;
      },
      { what: `the status of ${runId}` },
    );
  }

  it("lists every call of a reply that waits for a decision; decisions may come in any order, each used once", async () => {
    const run = restate.run("mail", "mail-1");
    await run.workflowSubmit({ task: "Email the team." });
    const status = await statusWhen("mail", "mail-1", (s) => s.phase === "awaiting_approval");
    expect(status.awaitingDecision.map((call) => call.id)).toEqual(["e1", "e2"]);
    expect(status.state).toBe("executingTools.awaitingDecision");

    // The second call is decided first: its decision waits in its durable promise until the run gets there.
    await run.decide({ callId: "e2", approved: false, reason: "too many recipients" });
    await run.decide({ callId: "e1", approved: true });
    const result = await run.workflowAttach();

    expect(result).toMatchObject({ status: "done", answer: "Done." });
    expect(sent).toContain("ana@example.com");
    expect(sent).not.toContain("all@example.com");
    const observations = result.messages.flatMap((message) => (message.role === "tool" ? [message.content] : []));
    expect(observations[0]).toBe('{"sent":"ana@example.com"}');
    expect(observations[1]).toMatch(/^ERROR: the user denied this call to send_email \(too many recipients\)/);
    const decisions = (await store.read("mail-1")).filter((event) => event.type === "approval.decided");
    // Both calls wait at once (a reply's calls run in parallel): the log takes decisions as they come.
    expect(decisions).toMatchObject([
      { callId: "e2", approved: false, reason: "too many recipients" },
      { callId: "e1", approved: true },
    ]);
  });

  it("refuses a decision for a call that does not wait, a second decision, and a malformed one", async () => {
    const run = restate.run("mail", "mail-2");
    await run.workflowSubmit({ task: "Email the team." });
    await statusWhen("mail", "mail-2", (s) => s.phase === "awaiting_approval");

    await expect(run.decide({ callId: "e9", approved: true })).rejects.toThrow(
      /call 'e9' does not wait for a decision \(waiting: 'e1', 'e2'\)/,
    );
    await expect(run.decide({ callId: "e1", approved: "yes" } as never)).rejects.toThrow(
      /approved must be true or false, got string yes/,
    );
    await run.decide({ callId: "e1", approved: true });
    await expect(run.decide({ callId: "e1", approved: false })).rejects.toThrow(/call 'e1' was already decided/);
    await run.decide({ callId: "e2", approved: true });
    expect(await run.workflowAttach()).toMatchObject({ status: "done" });
    await expect(restate.run("mail", "nobody").decide({ callId: "e1", approved: true })).rejects.toThrow(
      /call 'e1' does not wait for a decision \(waiting: none\)/,
    );
  });

  it("an approval policy decides as a journaled step; a call it leaves undecided waits for decide", async () => {
    const run = restate.run("policy", "policy-1");
    await run.workflowSubmit({ task: "Email the team." });
    const status = await statusWhen("policy", "policy-1", (s) => s.phase === "awaiting_approval");
    expect(status.awaitingDecision.map((call) => call.id)).toEqual(["e2"]);
    await run.decide({ callId: "e2", approved: false });
    const result = await run.workflowAttach();
    expect(result.status).toBe("done");
    const decisions = (await store.read("policy-1")).filter((event) => event.type === "approval.decided");
    expect(decisions).toMatchObject([
      { callId: "e1", approved: true },
      { callId: "e2", approved: false },
    ]);
  });

  it("cancel ends a waiting run as cancelled, every call closed with an ERROR; a second cancel does nothing", async () => {
    const run = restate.run("mail", "cancel-1");
    await run.workflowSubmit({ task: "Email the team." });
    await statusWhen("mail", "cancel-1", (s) => s.phase === "awaiting_approval");
    await run.cancel({ reason: "changed my mind" });
    await run.cancel({ reason: "twice" });
    const result = await run.workflowAttach();

    expect(result).toMatchObject({ status: "cancelled", answer: null, steps: 1 });
    const observations = result.messages.flatMap((message) => (message.role === "tool" ? [message.content] : []));
    expect(observations).toEqual([
      "ERROR: send_email was not run to completion: the run was cancelled.",
      "ERROR: send_email was not run to completion: the run was cancelled.",
    ]);
    const log = await store.read("cancel-1");
    expect(log.find((event) => event.type === "run.cancelled")).toMatchObject({ reason: "changed my mind" });
    expect(log.at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "cancelled" } });
    expect(await run.status()).toMatchObject({ phase: "finished", state: "cancelled" });
  });

  it("cancel stops a tool that is running: its signal aborts, and the run ends as cancelled", async () => {
    const run = restate.run("waiting", "cancel-2");
    await run.workflowSubmit({ task: "Wait." });
    // The status is not rewritten as a tool starts (only as the phase changes): the mirror shows it.
    await toolStarted("cancel-2", "w1");
    await run.cancel();
    const result = await run.workflowAttach();
    expect(result.status).toBe("cancelled");
    await waitUntil(() => stopped.includes("w"), { what: "the tool's signal to abort" });
  });

  it("a run cancelled through Restate's admin API ends as cancelled too, with its log finished", async () => {
    const run = restate.run("waiting", "cancel-3");
    const { invocationId } = await run.workflowSubmit({ task: "Wait." });
    await toolStarted("cancel-3", "w1");
    const response = await fetch(`${restate.server.admin}/invocations/${invocationId}/cancel`, { method: "PATCH" });
    expect(response.ok).toBe(true);
    const result = await run.workflowAttach();
    expect(result.status).toBe("cancelled");
    const log = await store.read("cancel-3");
    expect(log.find((event) => event.type === "run.cancelled")).toMatchObject({
      reason: "the invocation was cancelled in Restate",
    });
    expect(log.at(-1)?.type).toBe("run.finished");
  });
});

/** Waits until the run's mirrored log shows that call `callId` started. */
async function toolStarted(runId: string, callId: string): Promise<void> {
  const started = async () =>
    (await store.read(runId)).some((event) => event.type === "tool.started" && event.callId === callId);
  await waitUntil(started, { what: `the start of ${callId}` });
}
