import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { exec, ROOT } from "./npm-project.js";

const CORE = join(ROOT, "packages", "core");
const manifest = JSON.parse(readFileSync(join(CORE, "package.json"), "utf8")) as {
  readonly exports: Record<string, { readonly node?: string; readonly default: string }>;
};
const entries = Object.entries(manifest.exports);

/** What a fresh Node process prints for `script` (an ES module). */
async function inNode(script: string): Promise<string> {
  const ran = await exec(process.execPath, ["--input-type=module", "-e", script], CORE);
  expect(ran.stderr).toBe("");
  return ran.stdout;
}

/** The names each of `files` exports, as a fresh Node process imports them. */
async function namesOf(files: readonly string[]): Promise<string[][]> {
  const urls = files.map((file) => pathToFileURL(join(CORE, file)).href);
  const script = `const urls = ${JSON.stringify(urls)}; const names = []; for (const url of urls) names.push(Object.keys(await import(url)).sort()); process.stdout.write(JSON.stringify(names));`;
  return JSON.parse(await inNode(script)) as string[][];
}

// Node loads core's bundled build (the `node` condition), bundlers for the browser the module-per-file
// build (`default`): the two must offer the same names at every entry point, and Node must get one
// copy of each class and function however it reaches it. Both read core's dist/: build first.
describe("core's build for Node", () => {
  it("every entry point has a Node build", () => {
    expect(entries.length).toBeGreaterThan(5);
    expect(entries.filter(([, conditions]) => conditions.node === undefined).map(([path]) => path)).toEqual([]);
  });

  it("each entry point exports the same names from either build", async () => {
    const bundled = await namesOf(entries.map(([, conditions]) => conditions.node as string));
    const modules = await namesOf(entries.map(([, conditions]) => conditions.default));
    for (const [index, [path]] of entries.entries()) expect(bundled[index], path).toEqual(modules[index]);
  });

  it("Node resolves core by its name to the bundled build, one copy of each export across entry points", async () => {
    const script = [
      'const core = await import("@agentloop/core");',
      'const store = await import("@agentloop/core/store");',
      'const testing = await import("@agentloop/core/testing");',
      'const machine = await import("@agentloop/core/machine");',
      'const driver = await import("@agentloop/core/driver");',
      "process.stdout.write(JSON.stringify([",
      '  import.meta.resolve("@agentloop/core"),',
      "  core.MemoryEventStore === store.MemoryEventStore,",
      "  core.scriptedModel === testing.scriptedModel,",
      "  machine.mayRunAgain === driver.mayRunAgain,",
      "]));",
    ].join("\n");
    const [resolved, ...same] = JSON.parse(await inNode(script)) as [string, ...boolean[]];
    expect(resolved).toBe(pathToFileURL(join(CORE, "dist/node/index.js")).href);
    expect(same).toEqual([true, true, true]);
  });
});
