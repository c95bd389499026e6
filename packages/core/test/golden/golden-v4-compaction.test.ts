import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { replayRun, resumeAgent, scriptedModel, shownAtStep, ToolRegistry } from "../../src/index.js";
import { JsonlEventStore } from "../../src/stores/jsonl-store.js";
import { countingSummarizer, orphanProblem } from "../run/compaction-fixture.js";

// A golden log of schema 4, written once by the code of that version and never regenerated: a
// run that compacts with `summarize` three times (before model calls 3, 4 and 5), each summary
// logged as `context.compacted` with the summarizer's usage.

const GOLDEN = join(import.meta.dirname, "..", "fixtures", "golden");
const RUN = "v4-compaction";

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

describe("golden log of schema version 4: compaction", () => {
  it("is here", () => {
    expect(readdirSync(GOLDEN).filter((file) => file === `${RUN}.jsonl`)).toHaveLength(1);
  });

  it("replays to its result, the summarizer's tokens counted, and shows what the model saw at each step", async () => {
    const events = await goldenStore().read(RUN);
    const compacted = events.flatMap((e) => (e.type === "context.compacted" ? [[e.step, e.keptFrom]] : []));
    expect(compacted).toEqual([
      [3, 4],
      [4, 6],
      [5, 9],
    ]);
    const { result } = replayRun(events, { runId: RUN });
    // Five replies of 130 tokens and three summaries of 209.
    expect(result).toMatchObject({ status: "done", steps: 5, tokens: 5 * 130 + 3 * 209 });
    expect(result?.messages).toHaveLength(12);
    const lengths = [1, 2, 3, 4, 5].map((step) => shownAtStep(events, step)?.length);
    expect(lengths).toEqual([2, 4, 5, 6, 5]);
    expect(shownAtStep(events, 3)?.[2]?.content).toContain("Pages 1 and 2 are lorem ipsum.");
    expect(shownAtStep(events, 4)?.[2]?.content).toContain("Pages 1 to 4 are lorem ipsum.");
    for (const step of [1, 2, 3, 4, 5]) expect(orphanProblem(shownAtStep(events, step) ?? [])).toBeNull();
  });

  it("resume gives the finished run back, calling no model and no summarizer", async () => {
    const store = goldenStore();
    const { result } = replayRun(await store.read(RUN), { runId: RUN });
    const registry = new ToolRegistry();
    const page = { type: "object", properties: { page: { type: "integer" } }, required: ["page"] } as const;
    registry.register("read_page", "Reads one page of the report.", page, () => {
      throw new Error("ran again");
    });
    const summarizer = countingSummarizer();
    const again = await resumeAgent(RUN, scriptedModel([]), registry, { store, summarizer });
    expect(again).toEqual({ ...result, runId: RUN });
    expect(summarizer.prompts).toHaveLength(0);
  });
});
