import { readdirSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";

const files = readdirSync(new URL("../examples/", import.meta.url)).filter((file) => file.endsWith(".ts"));

describe("examples run", () => {
  it("there is an example to run", () => expect(files.length).toBeGreaterThan(0));
  for (const file of files) {
    it(`${file} runs to its end, its own assertions included`, async () => {
      const log = vi.spyOn(console, "log").mockImplementation(() => {});
      // A path, not a template: Vite analyses a template import as a glob, which needs an extension.
      const example = `../examples/${file}`;
      await import(example);
      expect(log).toHaveBeenCalled();
      log.mockRestore();
    });
  }
});
