import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The README's first command (install, then the demo), as written. */
export function firstCommand(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = /## Try it[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  return (block.split("\n")[0] ?? "").replace(/\s+#.*$/, "").trim();
}

/**
 * The environment of a new user's shell: what the test runner's pnpm added (its `npm_*` variables,
 * its `node_modules/.bin` on PATH, vitest's own) is left out, so the command meets what a user has.
 */
export function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|pnpm_|VITEST|NODE_ENV$|NODE_OPTIONS$|INIT_CWD$|TEST$)/i.test(key)) env[key] = value;
  }
  env.PATH = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => !dir.includes("node_modules"))
    .join(delimiter);
  return env;
}

/** A clone of this repository as a new user gets it: no `dist`, no `node_modules`, uncommitted edits included. */
function freshClone(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-clone-"));
  execFileSync("git", ["clone", "--quiet", "--shared", ROOT, dir]);
  const edits = execFileSync("git", ["diff", "HEAD", "--binary"], { cwd: ROOT });
  if (edits.length > 0) execFileSync("git", ["apply", "--whitespace=nowarn"], { cwd: dir, input: edits });
  return dir;
}

function sh(line: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", line], { cwd, env: userEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

const clones: string[] = [];
afterAll(() => {
  for (const dir of clones.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the README's first command on a fresh clone", () => {
  it("installs, builds and runs the demo, which answers; a second demo starts from the build", async () => {
    const line = firstCommand();
    expect(line).toMatch(/ install --frozen-lockfile && npx -y pnpm@[\d.]+ demo$/);
    const dir = freshClone();
    clones.push(dir);
    expect(existsSync(join(dir, "node_modules"))).toBe(false);
    expect(existsSync(join(dir, "packages/cli/dist"))).toBe(false);

    const first = await sh(line, dir);
    expect(first.output).not.toMatch(/SyntaxError|\n\s+at /);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toMatch(/^result {3}done · steps 3 · tokens \d+ · messages 7$/m);
    expect(first.output).toContain("answer   It is 86 F in Pune.");

    // The CLI README's first command, from the same root: the build is fresh, so no build runs.
    const again = await sh("npx -y pnpm@12.4.2 demo", dir);
    expect(again.code, again.output).toBe(0);
    expect(again.output).not.toContain("run build");
    expect(again.output).toContain("answer   It is 86 F in Pune.");
  }, 420_000);
});
