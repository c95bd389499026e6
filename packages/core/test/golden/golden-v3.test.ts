import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { replayRun, resumeAgent, scriptedModel, ToolRegistry } from "../../src/index.js";
import { EVENT_LOG_SCHEMA_VERSION } from "../../src/store.js";
import { JsonlEventStore } from "../../src/stores/jsonl-store.js";

// Golden logs of schema 3, written once by the code of that version and never regenerated: a
// tool that throws, an unknown tool and a denied call beside one that worked. From schema 3 on
// `tool.finished` says whether its observation is an error (`isError: true`), so replay reads it
// from there instead of from the text.

const GOLDEN = join(import.meta.dirname, "..", "fixtures", "golden");

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A JsonlEventStore over a temporary copy of the golden logs: the fixtures themselves are never written. */
function goldenStore(): JsonlEventStore {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-golden-v3-"));
  dirs.push(dir);
  cpSync(GOLDEN, dir, { recursive: true });
  return new JsonlEventStore(dir);
}

describe("golden logs of schema version 3", () => {
  it("are here, one version before the current schema", () => {
    const files = readdirSync(GOLDEN).filter((file) => file.startsWith("v3-"));
    expect(files.sort()).toEqual(["v3-errors.jsonl"]);
    expect(EVENT_LOG_SCHEMA_VERSION).toBe(4);
  });

  it("v3-errors: errors are logged as data, and the tool messages carry them", async () => {
    const events = await goldenStore().read("v3-errors");
    const finished = events.flatMap((e) => (e.type === "tool.finished" ? [[e.callId, e.isError]] : []));
    expect(finished).toEqual([
      ["w1", undefined],
      ["w2", true],
      ["n1", true],
    ]);
    const { result } = replayRun(events, { runId: "v3-errors" });
    expect(result).toMatchObject({ status: "done", steps: 2, tokens: 559 });
    expect(result?.answer).toBe("It is 30 °C in Pune; Atlantis has no station.");
    const tools = (result?.messages ?? []).flatMap((m) => (m.role === "tool" ? [[m.toolCallId, m.isError]] : []));
    // The denied call's message is the machine's own (no event): an error all the same.
    expect(tools).toEqual([
      ["w1", undefined],
      ["w2", true],
      ["n1", true],
      ["a1", true],
    ]);
  });

  it("v3-errors: resume gives the finished run back, calling nothing", async () => {
    const store = goldenStore();
    const { result } = replayRun(await store.read("v3-errors"), { runId: "v3-errors" });
    const ran: string[] = [];
    const city = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const;
    const registry = new ToolRegistry();
    registry.register("get_weather", "Current temperature of one city in Celsius.", city, () => ran.push("weather"));
    registry.register("post_alert", "Post a heat alert for a city. Needs approval.", city, () => ran.push("alert"), {
      needsApproval: true,
    });
    const again = await resumeAgent("v3-errors", scriptedModel([]), registry, { store });
    expect(again).toEqual({ ...result, runId: "v3-errors" });
    expect(ran).toEqual([]);
  });
});
