import { type AgentResult, contentText } from "@agentloop/core";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Balancer, freePort, startBalancer } from "../src/testing/index.js";
import { waitUntil } from "../src/testing/wait-until.js";
import { countEvents, expectLogReplays, type Harness, openHarness, task } from "./support/agent-runs.js";
import type { LedgerEntry } from "./support/ledger.js";
import type { ServiceProcess } from "./support/service-process.js";

const RUNS = 120;

// Two service processes behind one address (a TCP load balancer, as replicas would sit behind one),
// registered once with one Restate server: 120 runs spread over both, one process SIGKILLed while
// the batch is under way. Its runs move to the other process and every run finishes, each journaled
// effect exactly once.
describe("runs spread over two service processes, one killed mid-batch", () => {
  let harness: Harness;
  let balancer: Balancer;
  let killed: ServiceProcess;
  let survivor: ServiceProcess;
  let results: AgentResult[];

  beforeAll(async () => {
    // Few HTTP/2 streams per connection: the server opens several connections, which the balancer spreads.
    harness = await openHarness({ streamsPerConnection: 8 });
    const ports = [await freePort(), await freePort()];
    const env = { MODEL_DELAY_MS: "20" };
    [killed, survivor] = [
      await harness.service(ports[0] as number, env),
      await harness.service(ports[1] as number, env),
    ];
    balancer = await startBalancer(ports);
    await harness.server.register(`http://127.0.0.1:${balancer.port}`);

    const ids = Array.from({ length: RUNS }, (_, index) => `batch-${index}`);
    await Promise.all(ids.map((id) => harness.run(id).workflowSubmit({ task: task(id, "pay") })));
    // A third of the model calls made: the batch is well under way on both processes.
    await waitUntil(() => harness.ledger.entries().filter((entry) => entry.kind === "model-end").length >= RUNS, {
      what: "a third of the batch's model calls",
      timeoutMs: 60_000,
    });
    await killed.kill();
    results = await Promise.all(ids.map((id) => harness.run(id).workflowAttach()));
  }, hangGuard(120_000));

  afterAll(async () => {
    await balancer?.close();
    await harness?.close();
  });

  it("every run finishes with its answer", () => {
    expect(results).toHaveLength(RUNS);
    for (const result of results) expect(result).toMatchObject({ status: "done", answer: "Paid.", steps: 3 });
  });

  it("the runs were spread over both processes, and some moved when one was killed", () => {
    const entries = harness.ledger.entries();
    const pidsOf = (ref: string) => new Set(entries.filter((entry) => entry.ref === ref).map((entry) => entry.pid));
    const refs = results.map((result) => result.runId as string);
    expect(refs.filter((ref) => pidsOf(ref).has(killed.pid)).length).toBeGreaterThan(0);
    expect(refs.filter((ref) => pidsOf(ref).has(survivor.pid)).length).toBeGreaterThan(0);
    expect(refs.filter((ref) => pidsOf(ref).size === 2).length).toBeGreaterThan(0);
    expect([...balancer.connections.values()].every((count) => count > 0)).toBe(true);
  });

  it("an effect ran again only if its first attempt was in the killed process, and a charge never ran twice", () => {
    const attempts = new Map<string, LedgerEntry[]>();
    for (const entry of harness.ledger.entries()) {
      if (!entry.kind.endsWith("-start")) continue;
      const key = `${entry.ref} ${entry.key}`;
      attempts.set(key, [...(attempts.get(key) ?? []), entry]);
    }
    // 3 model calls and 3 tool calls per run; a charge reported lost may have been cut before its
    // tool began (the kill came after its "started" step was journaled): then it has no attempt.
    const neverBegun = results.filter((result) => {
      const charge = result.messages.find((message) => message.role === "tool" && message.toolCallId === "p1");
      const lost =
        (charge === undefined ? "" : contentText(charge.content)).startsWith("ERROR: the result of charge was lost") ===
        true;
      return lost && !attempts.has(`${result.runId} charge`);
    }).length;
    expect(attempts.size).toBe(RUNS * 6 - neverBegun);
    for (const [key, tries] of attempts) {
      expect(tries.length, key).toBeLessThanOrEqual(2);
      if (tries.length === 2) expect(tries[0]?.pid, key).toBe(killed.pid);
      if (key.endsWith(" charge")) expect(tries.length, key).toBe(1);
    }
  });

  it("a charge cut off by the kill reached the model as lost, and only then", () => {
    const entries = harness.ledger.entries();
    for (const result of results) {
      const ref = result.runId as string;
      const charge = result.messages.find((message) => message.role === "tool" && message.toolCallId === "p1");
      const lost =
        (charge === undefined ? "" : contentText(charge.content)).startsWith("ERROR: the result of charge was lost") ===
        true;
      if (!lost) expect(charge?.content, ref).toBe('{"charged":10}');
      // A lost charge began in the killed process, if it began at all; a charge that ended in the
      // survivor was never reported lost.
      const started = entries.find((entry) => entry.ref === ref && entry.key === "charge");
      if (lost && started !== undefined) expect(started.pid, ref).toBe(killed.pid);
      if (started?.pid === survivor.pid) expect(lost, ref).toBe(false);
    }
  });

  it("every run's mirrored log holds each effect once and replays to its result", {
    timeout: hangGuard(60_000),
  }, async () => {
    for (const result of results) {
      const log = await expectLogReplays(harness, result.runId as string, result);
      expect(countEvents(log, "model.replied")).toBe(3);
      for (const callId of ["w1", "w2", "p1"]) {
        expect(countEvents(log, "tool.started", callId)).toBe(1);
        expect(countEvents(log, "tool.finished", callId)).toBe(1);
      }
      expect(log.at(-1)?.type).toBe("run.finished");
    }
  });
});
