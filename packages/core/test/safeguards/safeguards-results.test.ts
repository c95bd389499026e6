import { describe, expect, it } from "vitest";
import {
  asks,
  final,
  MemoryEventStore,
  replayRun,
  runAgent,
  scriptedModel,
  ToolRegistry,
  ToolSchemaError,
  toolCall,
} from "../../src/index.js";
import { cutResult, DEFAULT_MAX_RESULT_CHARS } from "../../src/testing.js";
import { comparable, observationOf } from "../run/trace.js";

const MARKER = /\n\[\.\.\. (\d+) characters cut \.\.\.\]\n/;

/**
 * Checks that `content` is `text` cut to `limit` characters around the marker: it starts with the head of
 * `text` and ends with its tail, which together are `limit` characters, and the marker counts the rest.
 */
function expectCut(content: string | undefined, text: string, limit: number): void {
  const match = MARKER.exec(content ?? "");
  expect(match).not.toBeNull();
  if (match === null || content === undefined) return;
  const head = content.slice(0, match.index);
  const tail = content.slice(match.index + match[0].length);
  expect(Number(match[1])).toBe(text.length - limit);
  expect(head.length + tail.length).toBe(limit);
  expect(text.startsWith(head)).toBe(true);
  expect(text.endsWith(tail)).toBe(true);
  // Both ends are kept, the head no shorter than the tail.
  expect(head.length).toBeGreaterThanOrEqual(tail.length);
  expect(tail.length).toBeGreaterThanOrEqual(Math.floor(limit / 2));
}

/** `text` returns `n` digits (0123456789 over and over), so that every cut position is visible. */
function tools(perTool: { maxResultChars?: number } = {}) {
  const registry = new ToolRegistry();
  const digits = (n: number) => Array.from({ length: n }, (_, i) => String(i % 10)).join("");
  const params = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } as const;
  registry.register("text", "Digits.", params, ({ n }: { n: number }) => digits(n));
  registry.register("capped", "Digits, with a limit of its own.", params, ({ n }: { n: number }) => digits(n), perTool);
  registry.register("fail", "Fails long.", params, ({ n }: { n: number }) => {
    throw new Error(digits(n));
  });
  return { registry, digits };
}

/** What a tool returning `s` puts in the list before any cut: its JSON. */
const json = (s: string) => JSON.stringify(s);

describe("long results are cut before they enter the list", () => {
  it(`by default at ${DEFAULT_MAX_RESULT_CHARS} characters, keeping head and tail around the marker`, async () => {
    expect(DEFAULT_MAX_RESULT_CHARS).toBe(8000);
    const { registry, digits } = tools();
    const model = scriptedModel([
      asks(toolCall("a", "text", { n: 9000 }), toolCall("b", "text", { n: 7998 })),
      final("ok"),
    ]);
    const result = await runAgent("t", model, registry, { tokenBudget: Number.POSITIVE_INFINITY });
    expect(result.status).toBe("done");
    expectCut(observationOf(result.messages, "a"), json(digits(9000)), 8000);
    expect(observationOf(result.messages, "a")).toContain("[... 1002 characters cut ...]");
    // 7998 digits are 8000 characters of JSON: exactly the limit, not cut.
    expect(observationOf(result.messages, "b")).toBe(json(digits(7998)));
    // The model is shown the cut result, never the whole one.
    expect(JSON.stringify(model.seen[1]).length).toBeLessThan(9000 + 8000);
  });

  it("per run: maxResultChars sets the limit; one character over is cut by one", async () => {
    const { registry, digits } = tools();
    const model = scriptedModel([
      asks(toolCall("a", "text", { n: 98 }), toolCall("b", "text", { n: 99 }), toolCall("c", "text", { n: 500 })),
      final("ok"),
    ]);
    const result = await runAgent("t", model, registry, { maxResultChars: 100 });
    expect(observationOf(result.messages, "a")).toBe(json(digits(98)));
    expectCut(observationOf(result.messages, "b"), json(digits(99)), 100);
    expect(observationOf(result.messages, "b")).toContain("[... 1 characters cut ...]");
    expectCut(observationOf(result.messages, "c"), json(digits(500)), 100);
  });

  it("per tool: its own limit wins over the run's, lower or higher; other tools keep the run's", async () => {
    for (const [own, run] of [
      [30, 100],
      [300, 100],
    ] as const) {
      const { registry, digits } = tools({ maxResultChars: own });
      const model = scriptedModel([
        asks(toolCall("a", "capped", { n: 400 }), toolCall("b", "text", { n: 400 })),
        final("ok"),
      ]);
      const result = await runAgent("t", model, registry, { maxResultChars: run });
      expectCut(observationOf(result.messages, "a"), json(digits(400)), own);
      expectCut(observationOf(result.messages, "b"), json(digits(400)), run);
    }
  });

  it("an ERROR observation is cut too, and still starts with ERROR:", async () => {
    const { registry, digits } = tools();
    const result = await runAgent(
      "t",
      scriptedModel([asks(toolCall("f", "fail", { n: 300 })), final("ok")]),
      registry,
      {
        maxResultChars: 60,
      },
    );
    const content = observationOf(result.messages, "f");
    expect(content).toMatch(/^ERROR: fail failed: Error: 012\n/);
    expectCut(content, `ERROR: fail failed: Error: ${digits(300)}`, 60);
  });

  it("the log keeps the cut observation, so replay needs no tool and gives the same list", async () => {
    const { registry } = tools();
    const store = new MemoryEventStore();
    const result = await runAgent(
      "t",
      scriptedModel([asks(toolCall("a", "text", { n: 5000 })), final("ok")]),
      registry,
      {
        maxResultChars: 50,
        store,
        runId: "cut",
      },
    );
    const log = await store.read("cut");
    const finished = log.find((e) => e.type === "tool.finished");
    expect(finished).toMatchObject({ content: observationOf(result.messages, "a") });
    expect(replayRun(log).result).toEqual(comparable(result));
  });

  it("cutResult: short text comes back as it is; long text keeps head and tail; tiny limits still say what was cut", () => {
    expect(cutResult("abc", 3)).toBe("abc");
    expect(cutResult("abcdefghij", 4)).toBe("ab\n[... 6 characters cut ...]\nij");
    expect(cutResult("abcdefghij", 5)).toBe("abc\n[... 5 characters cut ...]\nij");
    expect(cutResult("abcdefghij", 1)).toBe("a\n[... 9 characters cut ...]\n");
  });

  // Regression test; before the fix: cutResult cuts at code units, so a cut inside a character outside the BMP (an emoji, many CJK
  // extensions) leaves a lone surrogate in the observation. JSON.stringify escapes it (\ud83d), and providers
  // that check Unicode reject the next request. Expected: the head and the tail end on whole characters
  // (shift each cut point by one unit when it would split a pair, and count the marker accordingly).
  it("never splits a character: no lone surrogate is left at either end of the cut", async () => {
    const registry = new ToolRegistry();
    registry.register("smile", "Smiles.", { type: "object" }, () => "😀".repeat(40));
    const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    for (const limit of [4, 5, 6, 7, 20, 21]) {
      const result = await runAgent("t", scriptedModel([asks(toolCall("s", "smile")), final("ok")]), registry, {
        maxResultChars: limit,
      });
      const content = observationOf(result.messages, "s") ?? "";
      expect(content).toMatch(MARKER);
      expect(loneSurrogate.test(content), `maxResultChars ${limit}: ${JSON.stringify(content)}`).toBe(false);
    }
  });

  it.each([0, -1, 1.5, Number.NaN])("per tool: maxResultChars %s is a ToolSchemaError", (limit) => {
    const registry = new ToolRegistry();
    expect(() => registry.register("t", "d", { type: "object" }, () => 1, { maxResultChars: limit })).toThrow(
      ToolSchemaError,
    );
  });

  // Regression test; before the fix: runAgent does not check maxResultChars. 0 turns every observation into a bare marker
  // ("\n[... 60 characters cut ...]\n": no ERROR: prefix, nothing of the result); a negative number keeps almost
  // everything with a marker that overstates the cut; NaN gives "[... NaN characters cut ...]". Expected: a
  // RangeError before anything runs, as for the per-tool option (ToolSchemaError) and the other run limits.
  it.each([0, -4, 1.5, Number.NaN])(
    "per run: maxResultChars %s is a RangeError before anything runs",
    async (limit) => {
      const { registry } = tools();
      const model = scriptedModel([asks(toolCall("a", "text", { n: 50 })), final("ok")]);
      await expect(runAgent("t", model, registry, { maxResultChars: limit })).rejects.toThrow(RangeError);
      expect(model.seen).toEqual([]);
    },
  );
});
