import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { StudioBuild } from "./studio.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
/** Where the builds are kept between runs: outside the repository, so no tool of it reads them. */
const KEPT = join(tmpdir(), "agentloop-studio-against");

/**
 * The CLI as it was at `ref`, for `bench:studio --against <ref>`: the commit's files are written to
 * `<tmpdir>/agentloop-studio-against/<sha>/` (kept, so a second run builds nothing),
 * its dependencies installed from the local pnpm store (`--offline`) and the CLI built with the
 * packages it depends on.
 */
export function buildAgainst(ref: string, progress: (line: string) => void): StudioBuild {
  const sha = execFileSync("git", ["rev-parse", "--short", ref], { cwd: ROOT, encoding: "utf8" }).trim();
  const tree = join(KEPT, sha);
  const cli = join(tree, "packages/cli/dist/main.js");
  if (!existsSync(cli)) {
    progress(`bench: building the CLI at ${ref} (${sha}) in ${tree}...`);
    const scratch = `${tree}.building`;
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    const archive = execFileSync("git", ["archive", "--format=tar", sha], { cwd: ROOT, maxBuffer: 1 << 30 });
    execFileSync("tar", ["-x", "-C", scratch], { input: archive });
    const run = (args: readonly string[]) => execFileSync("pnpm", args, { cwd: scratch, stdio: "ignore" });
    run(["install", "--frozen-lockfile", "--offline"]);
    run(["--filter", "@agentloop/cli...", "build"]);
    renameSync(scratch, tree);
  }
  return { name: `${ref} (${sha})`, cli };
}
