import { readdirSync } from "node:fs";
import { expect, it } from "vitest";

const files = readdirSync(new URL("../examples/", import.meta.url)).filter((file) => file.endsWith(".ts"));

it("there is an example to run", () => expect(files).toContain("tracing.ts"));

for (const file of files) {
  it(`${file} runs to its end, its own assertions included`, async () => {
    await import(`../examples/${file.replace(/\.ts$/, ".js")}`);
  });
}
