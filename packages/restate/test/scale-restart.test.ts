import { type AgentResult, contentText } from "@agentloop/core";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../src/testing/index.js";
import { waitUntil } from "../src/testing/wait-until.js";
import { countEvents, expectLogReplays, type Harness, openHarness, task } from "./support/agent-runs.js";
import type { LedgerEntry } from "./support/ledger.js";
import type { ServiceProcess } from "./support/service-process.js";

// `pnpm --filter @agentloop/restate test:scale` runs it with 500 runs and prints the throughput.
const RUNS = Number(process.env.AGENTLOOP_SCALE_RUNS ?? 100);
const HALF = Math.floor(RUNS / 2);

// Two deployments of the same service, each its own process: half the runs are started on the
// first, the other half on the second (Restate keeps a run on the deployment it started on). The
// first process is SIGKILLed while its runs are under way and started again on the same address:
// its runs go on there from Restate's journal while the second's go on undisturbed. Every run ends
// once, no tool ends twice, a charge never starts twice, and every log replays to its result.
describe(`${RUNS} runs at once over two deployments, one process SIGKILLed mid-run and started again`, () => {
  let harness: Harness;
  let killed: ServiceProcess;
  let restarted: ServiceProcess;
  let other: ServiceProcess;
  let results: AgentResult[];
  const ids = Array.from({ length: RUNS }, (_, index) => `scale-${index}`);

  beforeAll(async () => {
    harness = await openHarness({ streamsPerConnection: 8 });
    const env = { MODEL_DELAY_MS: "20" };
    const ports = [await freePort(), await freePort()] as const;
    const started = performance.now();
    // A fifth of the first half waits at its last model call in the first process, so the kill
    // always finds runs under way however fast the others go.
    const held = ids.slice(0, HALF).filter((id) => /[05]$/.test(id));
    killed = await harness.service(ports[0], { ...env, BLOCK: "model:3", BLOCK_REFS: "[05]$" });
    await harness.server.register(`http://127.0.0.1:${ports[0]}`);
    await Promise.all(ids.slice(0, HALF).map((id) => harness.run(id).workflowSubmit({ task: task(id, "pay") })));
    // Every run of the first half has begun on the first deployment before the second is registered.
    const begun = (pid: number) => new Set(ofPid(harness, pid, "model-start").map((entry) => entry.ref)).size;
    await waitUntil(() => begun(killed.pid) >= HALF, { what: "the first half to begin", timeoutMs: 60_000 });
    other = await harness.service(ports[1], env);
    await harness.server.register(`http://127.0.0.1:${ports[1]}`);
    await Promise.all(ids.slice(HALF).map((id) => harness.run(id).workflowSubmit({ task: task(id, "pay") })));
    // A third of the first half's model calls made: its runs are well under way.
    await waitUntil(() => ofPid(harness, killed.pid, "model-end").length >= HALF, {
      what: "a third of the first half's model calls",
      timeoutMs: 60_000,
    });
    const waiting = () =>
      new Set(
        ofPid(harness, killed.pid, "model-start")
          .filter((e) => e.key === "step 3")
          .map((e) => e.ref),
      );
    await waitUntil(() => held.every((id) => waiting().has(id)), { what: "the held runs to wait", timeoutMs: 60_000 });
    await killed.kill();
    restarted = await harness.service(ports[0], env);
    results = await Promise.all(ids.map((id) => harness.run(id).workflowAttach()));
    const seconds = (performance.now() - started) / 1000;
    if (process.env.AGENTLOOP_SCALE_RUNS !== undefined) {
      process.stderr.write(`${RUNS} runs in ${seconds.toFixed(1)} s: ${(RUNS / seconds).toFixed(1)} runs/s\n`);
    }
  }, hangGuard(300_000));

  afterAll(async () => {
    await harness?.close();
  });

  it("every run finishes once, with its answer", async () => {
    expect(results).toHaveLength(RUNS);
    for (const [index, result] of results.entries()) {
      expect(result).toMatchObject({ status: "done", answer: "Paid.", steps: 3, runId: ids[index] });
    }
    // The mirrored logs: one start and one end each.
    for (const id of ids) {
      const log = await harness.store.read(id);
      expect(countEvents(log, "run.started"), id).toBe(1);
      expect(countEvents(log, "run.finished"), id).toBe(1);
    }
  });

  it("the killed process's runs went on in the process started in its place, the other deployment's never moved", () => {
    const pidsOf = new Map<string, Set<number>>();
    for (const entry of harness.ledger.entries()) {
      pidsOf.set(entry.ref, (pidsOf.get(entry.ref) ?? new Set()).add(entry.pid));
    }
    const first = ids.slice(0, HALF);
    const second = ids.slice(HALF);
    for (const id of first) expect([...(pidsOf.get(id) ?? [])], id).not.toContain(other.pid);
    for (const id of second) expect([...(pidsOf.get(id) ?? [])], id).toEqual([other.pid]);
    const resumed = first.filter((id) => pidsOf.get(id)?.has(killed.pid) && pidsOf.get(id)?.has(restarted.pid));
    expect(resumed.length).toBeGreaterThan(0);
    // The held runs were cut off at their last model call, which the process started in its place made.
    for (const id of first.filter((ref) => /[05]$/.test(ref))) expect(resumed, id).toContain(id);
  });

  it("no tool ran twice but an idempotent one the kill cut off, and a charge never started twice", () => {
    const attempts = new Map<string, LedgerEntry[]>();
    const ends = new Map<string, LedgerEntry[]>();
    for (const entry of harness.ledger.entries()) {
      const key = `${entry.ref} ${entry.key}`;
      if (entry.kind.endsWith("-start")) attempts.set(key, [...(attempts.get(key) ?? []), entry]);
      if (entry.kind === "tool-end") ends.set(key, [...(ends.get(key) ?? []), entry]);
    }
    // A tool ends twice only when it is idempotent and its first run ended in the killed process
    // before its result was journaled.
    for (const [key, done] of ends) {
      if (done.length === 1) continue;
      expect(done.length, key).toBe(2);
      expect(key, key).toMatch(/ get_weather /);
      expect(done[0]?.pid, key).toBe(killed.pid);
    }
    for (const [key, tries] of attempts) {
      expect(tries.length, key).toBeLessThanOrEqual(2);
      if (tries.length === 2) expect(tries[0]?.pid, key).toBe(killed.pid);
      if (key.endsWith(" charge")) expect(tries.length, key).toBe(1);
    }
    // A charge reported lost began in the killed process, if it began at all; one begun elsewhere was never lost.
    for (const result of results) {
      const ref = result.runId as string;
      const charge = result.messages.find((message) => message.role === "tool" && message.toolCallId === "p1");
      const lost =
        (charge === undefined ? "" : contentText(charge.content)).startsWith("ERROR: the result of charge was lost") ===
        true;
      if (!lost) expect(charge?.content, ref).toBe('{"charged":10}');
      const began = attempts.get(`${ref} charge`)?.[0];
      if (lost && began !== undefined) expect(began.pid, ref).toBe(killed.pid);
    }
  });

  it("every run's log holds each effect once and replays to its result", { timeout: hangGuard(120_000) }, async () => {
    const check = async (result: AgentResult) => {
      const log = await expectLogReplays(harness, result.runId as string, result);
      expect(countEvents(log, "model.replied")).toBe(3);
      for (const callId of ["w1", "w2", "p1"]) {
        expect(countEvents(log, "tool.started", callId)).toBe(1);
        expect(countEvents(log, "tool.finished", callId)).toBe(1);
      }
    };
    // A few at a time: each reads the run's log from the store and from its workflow.
    for (let at = 0; at < results.length; at += 16) await Promise.all(results.slice(at, at + 16).map(check));
  });
});

/** The ledger's entries of `kind` made by process `pid`. */
function ofPid(harness: Harness, pid: number, kind: LedgerEntry["kind"]): LedgerEntry[] {
  return harness.ledger.entries().filter((entry) => entry.pid === pid && entry.kind === kind);
}
