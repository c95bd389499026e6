import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, describe, expect, it } from "vitest";
import { sh } from "../shell.js";

// slow: it clones the repository, installs it and runs the README's first command, as a newcomer does.

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** The README's first command (install, then the demo), as written. */
export function firstCommand(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = /## Try it[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  return (block.split("\n")[0] ?? "").replace(/\s+#.*$/, "").trim();
}

/** A clone of this repository as a new user gets it: no `dist`, no `node_modules`, uncommitted edits included. */
function freshClone(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-clone-"));
  execFileSync("git", ["clone", "--quiet", "--shared", ROOT, dir]);
  const edits = execFileSync("git", ["diff", "HEAD", "--binary"], { cwd: ROOT });
  if (edits.length > 0) execFileSync("git", ["apply", "--whitespace=nowarn"], { cwd: dir, input: edits });
  return dir;
}

const clones: string[] = [];
afterAll(() => {
  for (const dir of clones.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the README's first command on a fresh clone", () => {
  it(
    "installs, builds and runs the demo, which answers; a second demo starts from the build",
    async () => {
      const line = firstCommand();
      expect(line).toMatch(/ install --frozen-lockfile && npx -y pnpm@[\d.]+ demo$/);
      const dir = freshClone();
      clones.push(dir);
      expect(existsSync(join(dir, "node_modules"))).toBe(false);
      expect(existsSync(join(dir, "packages/cli/dist"))).toBe(false);

      const first = await sh(line, dir);
      const output = first.stdout + first.stderr;
      expect(output).not.toMatch(/SyntaxError|\n\s+at /);
      expect(first.code, output).toBe(0);
      expect(first.stdout).toMatch(/^result {3}done · steps 3 · tokens \d+ · messages 7$/m);
      expect(first.stdout).toContain("answer   It is 86 F in Pune.");

      // The CLI README's first command, from the same root: the build is fresh, so no build runs.
      const again = await sh("npx -y pnpm@12.4.2 demo", dir);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).not.toContain("run build");
      expect(again.stdout).toContain("answer   It is 86 F in Pune.");
    },
    hangGuard(420_000),
  );
});
