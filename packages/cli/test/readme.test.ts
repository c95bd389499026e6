import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "./cli.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PREFIX = "node packages/cli/dist/main.js ";

/** The commands of the README's "See a run" block, as written. */
function seeARun(): string[][] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = /## See a run[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line.startsWith(PREFIX))
    .map((line) => [...line.slice(PREFIX.length).matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? ""));
}

const made = [join(ROOT, ".agentloop/runs/pune.jsonl"), join(ROOT, "report.html")];
afterAll(() => {
  for (const file of made) rmSync(file, { force: true });
});

describe("the README's 'See a run' commands", () => {
  it("run as written, from the repository's root, one after the other", async () => {
    const commands = seeARun();
    expect(commands.map((words) => words[0])).toEqual(["run", "chat", "show", "show", "list", "graph"]);
    for (const file of made) rmSync(file, { force: true });
    for (const words of commands) {
      const ran = await cli(words, { cwd: ROOT });
      expect(ran.stderr, words.join(" ")).toBe("");
      expect(ran.code, words.join(" ")).toBe(0);
    }
    expect(existsSync(join(ROOT, "report.html"))).toBe(true);
    const shown = await cli(["replay", ".agentloop/runs/pune.jsonl"], { cwd: ROOT });
    expect(shown.stdout).toContain("answer   Delhi is warmer: 35 C.");
  });
});
