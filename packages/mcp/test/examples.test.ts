import { readdirSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";

const files = readdirSync(new URL("../examples/", import.meta.url)).filter((file) => file.endsWith(".ts"));

describe("examples run", () => {
  it("there is an example to run", () => expect(files.length).toBeGreaterThan(0));
  for (const file of files) {
    it(`${file} runs to its end, its own assertions included`, async () => {
      const log = vi.spyOn(console, "log").mockImplementation(() => {});
      await import(`../examples/${file.replace(/\.ts$/, ".js")}`);
      expect(log).toHaveBeenCalled();
      log.mockRestore();
    });
  }
});
