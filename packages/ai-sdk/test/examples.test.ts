import { readdirSync } from "node:fs";
import { expect, it } from "vitest";

const files = readdirSync(new URL("../examples/", import.meta.url)).filter((file) => file.endsWith(".ts"));

it("there is an example to run", () => expect(files).toContain("serve-chat.ts"));

for (const file of files) {
  it(`${file} runs to its end, its own assertions included`, async () => {
    // A path, not a template: Vite analyses a template import as a glob, which needs an extension.
    const example = `../examples/${file}`;
    await import(example);
  });
}
