import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";

const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
const example = readFileSync(new URL("./readme-example.ts", import.meta.url), "utf8");

describe("README usage example", () => {
  it("is the code of readme-example.ts, word for word", () => {
    const block = /<!-- readme-example:[^>]*-->\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(example);
  });

  it("runs and prints what its comment says", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    await import("./readme-example.js");
    expect(log).toHaveBeenCalledTimes(1);
    const [status, answer, steps, tokens] = log.mock.calls[0] ?? [];
    expect([status, answer, steps]).toEqual(["done", "It is 30 °C in Pune.", 2]);
    expect(tokens).toBeGreaterThan(0);
    log.mockRestore();
  });
});
