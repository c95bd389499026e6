import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Guardrail } from "../../src/index.js";
import { replayRun, resumeAgent, scriptedModel } from "../../src/index.js";
import { EVENT_LOG_SCHEMA_VERSION } from "../../src/store.js";
import { JsonlEventStore } from "../../src/stores/jsonl-store.js";
import { makeWeatherRegistry } from "../../src/testing.js";

// Golden logs of schema 4, written once by the code of that version and never regenerated: a
// typed answer (an invalid one, then a valid one) between an input and an output guardrail, and
// an input guardrail that trips. Every verdict is in the log, so replay and resume run no check.

const GOLDEN = join(import.meta.dirname, "..", "fixtures", "golden");

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function goldenStore(): JsonlEventStore {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-golden-v4-"));
  dirs.push(dir);
  cpSync(GOLDEN, dir, { recursive: true });
  return new JsonlEventStore(dir);
}

const refuses: Guardrail = {
  name: "pii",
  check: () => {
    throw new Error("a guardrail was called again");
  },
};

describe("golden logs of schema version 4", () => {
  it("are here for the current schema", () => {
    const files = readdirSync(GOLDEN).filter((file) => file.startsWith("v4-"));
    expect(files.sort()).toEqual([
      "v4-agent-tree.jsonl",
      "v4-agent-tree.r1.jsonl",
      "v4-anchored.jsonl",
      "v4-ceiling.jsonl",
      "v4-child-paused.jsonl",
      "v4-child-paused.m1.jsonl",
      "v4-compaction.jsonl",
      "v4-guardrail-tripped.jsonl",
      "v4-handoff.jsonl",
      "v4-memory.jsonl",
      "v4-output-guardrails.jsonl",
      "v4-retries.jsonl",
      "v4-steering.jsonl",
      "v4-tool-asks.jsonl",
    ]);
    expect(EVENT_LOG_SCHEMA_VERSION).toBe(4);
  });

  it("v4-output-guardrails: replays to its typed answer, and resume gives it back calling nothing", async () => {
    const store = goldenStore();
    const events = await store.read("v4-output-guardrails");
    expect(events.map((e) => e.type).filter((t) => t.endsWith(".checked"))).toEqual([
      "guardrail.checked",
      "output.checked",
      "output.checked",
      "guardrail.checked",
    ]);
    const replayed = replayRun(events, { runId: "v4-output-guardrails" });
    expect(replayed.result).toMatchObject({ status: "done", steps: 3, output: { city: "Pune", fahrenheit: 86 } });
    const { registry } = makeWeatherRegistry();
    const result = await resumeAgent("v4-output-guardrails", scriptedModel([]), registry, {
      store,
      guardrails: { input: [refuses], output: [refuses] },
    });
    expect(result.output).toEqual({ city: "Pune", fahrenheit: 86 });
  });

  it("v4-guardrail-tripped: the first trip in order of declaration, before any model call", async () => {
    const store = goldenStore();
    const events = await store.read("v4-guardrail-tripped");
    const replayed = replayRun(events, { runId: "v4-guardrail-tripped" });
    expect(replayed.result).toMatchObject({
      status: "guardrail_tripped",
      steps: 0,
      guardrail: { name: "topic", stage: "input", reason: "off topic" },
    });
    expect(events.some((e) => e.type === "model.replied")).toBe(false);
  });
});
