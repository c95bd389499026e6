import { inspect } from "node:util";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  asks,
  final,
  MemoryEventStore,
  type Message,
  type Model,
  type ModelReply,
  type RunOptions,
  resumeAgent,
  runAgent,
  type ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { bigResults, countingSummarizer } from "../run/compaction-fixture.js";

/** A secret only the conversation holds: no error may print it. */
const SECRET = "account 4111-1111-1111-1111";
const TASK = `Pay the invoice from ${SECRET}.`;

/** `fetch` (2 KB results) and `pay`, which waits for a decision. */
function registry(): ToolRegistry {
  const tools = bigResults();
  tools.register(
    "pay",
    "Pays an invoice.",
    { type: "object", properties: { amount: { type: "integer" } }, required: ["amount"] },
    ({ amount }: { amount: number }) => `paid ${amount}`,
    { needsApproval: true },
  );
  return tools;
}

/** Fetches two pages, asks to pay, then answers `{"paid":1}`; it fails when asked without tools (as a summarizer). */
function payingModel(): Model {
  return (messages: readonly Message[], tools: readonly unknown[]): ModelReply => {
    if (tools.length === 0) throw new Error("this model writes no summaries");
    // A compacted view hides earlier replies: the paid invoice is what tells the end.
    if (JSON.stringify(messages).includes("paid 1")) return final('{"paid":1}');
    const step = messages.filter((message) => message.role === "assistant").length;
    if (step < 2) return asks(toolCall(`f${step}`, "fetch", { page: step }));
    return asks(toolCall("p", "pay", { amount: 1 }));
  };
}

const schema = z.object({ paid: z.number() });

/** Runs until `pay` waits for its decision: the resume then compacts before its next model call. */
async function paused(summarizer: Model) {
  const store = new MemoryEventStore();
  const options = {
    store,
    runId: "pay",
    maxSteps: 6,
    tokenBudget: 100_000,
    output: schema,
    compaction: { triggerTokens: 1200, keepRecent: 1, summarizer },
  } satisfies RunOptions<typeof schema>;
  const first = await runAgent(TASK, payingModel(), registry(), options);
  expect(first.status).toBe("awaiting_approval");
  return { store, options };
}

describe("resumeAgent's options", () => {
  it("types result.output from its output option, as runAgent does", async () => {
    const summarizer = countingSummarizer();
    const { store } = await paused(summarizer);
    const result = await resumeAgent("pay", payingModel(), registry(), {
      store,
      decisions: { p: { approved: true } },
      summarizer,
      output: schema,
    });
    expectTypeOf(result.output).toEqualTypeOf<{ paid: number } | undefined>();
    expect(result).toMatchObject({ status: "done", output: { paid: 1 } });
  });

  it("takes the summarizer from compaction, so runAgent's summarizer goes on summarizing", async () => {
    const summarizer = countingSummarizer();
    const { store } = await paused(summarizer);
    const before = summarizer.prompts.length;
    const result = await resumeAgent("pay", payingModel(), registry(), {
      store,
      decisions: { p: { approved: true } },
      compaction: { summarizer },
      output: schema,
    });
    expect(result.status).toBe("done");
    expect(summarizer.prompts.length).toBeGreaterThan(before);
  });

  it("refuses in one line the options a resume cannot take (runAgent's spread in), naming each", async () => {
    const summarizer = countingSummarizer();
    const { store, options } = await paused(summarizer);
    const error = await resumeAgent("pay", payingModel(), registry(), {
      ...options,
      store,
      decisions: { p: { approved: true } },
    } as Parameters<typeof resumeAgent>[3]).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(TypeError);
    const { message } = error as TypeError;
    expect(message).not.toContain("\n");
    for (const name of ["runId", "maxSteps", "tokenBudget", "compaction.triggerTokens", "compaction.keepRecent"]) {
      expect(message).toContain(name);
    }
    expect(summarizer.prompts).toHaveLength(summarizer.prompts.length);
    expect((await store.read("pay")).at(-1)?.type).not.toBe("approval.decided");
  });

  it("refuses an option it does not know rather than ignoring it", async () => {
    const { store } = await paused(countingSummarizer());
    const options = { store, decisions: { p: { approved: true } }, summariser: countingSummarizer() };
    await expect(
      resumeAgent("pay", payingModel(), registry(), options as Parameters<typeof resumeAgent>[3]),
    ).rejects.toThrow(/^resumeAgent cannot take summariser/);
  });

  it("a summary that fails rejects without printing the conversation", async () => {
    const { store } = await paused(countingSummarizer());
    // No summarizer given: the run's own model is asked for the summary, and it fails.
    const error = await resumeAgent("pay", payingModel(), registry(), {
      store,
      decisions: { p: { approved: true } },
    }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ name: "ModelError" });
    expect((error as Error).message).not.toContain(SECRET);
    expect(inspect(error)).not.toContain(SECRET);
    expect(String(error)).not.toContain(SECRET);
    // The list is still there for a caller that asks for it.
    expect(JSON.stringify((error as { messages: unknown }).messages)).toContain(SECRET);
  });
});
