import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";

const root = new URL("../../../", import.meta.url);
const examples = new URL("../examples/", import.meta.url);
const packages = readdirSync(new URL("packages/", root)).map((name) => `packages/${name}/README.md`);
const documents = [
  "README.md",
  ...readdirSync(new URL("docs/", root), { recursive: true, encoding: "utf8" }).map(
    (file) => `docs/${file.split("\\").join("/")}`,
  ),
  ...packages,
]
  .filter((file) => file.endsWith(".md"))
  .filter((file) => existsSync(new URL(file, root)));

/**
 * Every TypeScript sample in the README and in docs/ is the text of a file that the typecheck
 * compiles: an example under packages/<name>/examples/ named by the marker line just above it.
 */
describe("documentation samples", () => {
  for (const document of documents) {
    it(`${document}: every ts sample is a compiled example, word for word`, () => {
      const text = readFileSync(new URL(document, root), "utf8");
      const blocks = [...text.matchAll(/(?:<!-- example: (\S+) -->\n)?```ts\n([\s\S]*?)```/g)];
      for (const [, path, code] of blocks) {
        expect(path, `a ts sample in ${document} has no <!-- example: ... --> marker`).toBeDefined();
        expect(code).toBe(readFileSync(new URL(String(path), root), "utf8"));
      }
    });
  }
});

describe("examples run", () => {
  const files = readdirSync(examples).filter((file) => file.endsWith(".ts"));
  it("there are examples to run", () => expect(files.length).toBeGreaterThan(3));
  for (const file of files) {
    it(`${file} runs to its end, its own assertions included`, async () => {
      const log = vi.spyOn(console, "log").mockImplementation(() => {});
      // A path, not a template: Vite analyses a template import as a glob, which needs an extension.
      const example = `../examples/${file}`;
      await import(example);
      log.mockRestore();
    });
  }

  it("quick-start prints what its comment says", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    vi.resetModules();
    await import("../examples/quick-start.js");
    const [status, answer, steps, tokens] = log.mock.calls[0] ?? [];
    expect([status, answer, steps]).toEqual(["done", "It is 30 °C in Pune.", 2]);
    expect(tokens).toBeGreaterThan(0);
    log.mockRestore();
  });
});

describe("the example logs in docs/event-log.md", () => {
  const text = readFileSync(new URL("docs/event-log.md", root), "utf8");
  const blocks = [...text.matchAll(/```jsonl\n([\s\S]*?)```/g)].map(([, block]) => block ?? "");
  const parse = async (block: string, runId: string) => {
    const { parseEventLog } = await import("../src/store.js");
    const lines = block.trim().split("\n");
    return parseEventLog(
      runId,
      lines.map((line) => JSON.parse(line) as unknown),
    );
  };

  it("the weather run parses and replays to a finished run", async () => {
    const { replayRun } = await import("../src/index.js");
    const events = await parse(blocks[0] ?? "", "docs-example");
    expect(events.length).toBeGreaterThan(3);
    expect(replayRun(events).result).toMatchObject({ status: "done", answer: "It is 30 °C in Pune.", steps: 2 });
  });

  it("the typed answer's log is the golden one, and replays to its checked value", async () => {
    const { replayRun } = await import("../src/index.js");
    const golden = readFileSync(new URL("../test/fixtures/golden/v4-output-guardrails.jsonl", import.meta.url), "utf8");
    expect(blocks[1]).toBe(golden);
    const events = await parse(blocks[1] ?? "", "v4-output-guardrails");
    const { result } = replayRun(events, { runId: "v4-output-guardrails" });
    expect(result).toMatchObject({ status: "done", steps: 3, output: { city: "Pune", fahrenheit: 86 } });
  });
});
