// `pnpm demo`: builds the CLI and the packages it uses the first time (or when a source file is newer than its
// build), then runs `agentloop demo` with the arguments given. A second run starts at once.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const PACKAGES = ["core", "openai", "anthropic", "sqlite", "cli"];

function newest(dir) {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    time = Math.max(time, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return time;
}

const stale = PACKAGES.some((name) => {
  const dist = join("packages", name, "dist");
  return !existsSync(dist) || newest(join("packages", name, "src")) > newest(dist);
});
if (stale) {
  // npm_execpath is the package manager running this script (pnpm, also when started with npx):
  // a JavaScript file up to pnpm 10, a native executable from pnpm 11 on, which Node cannot load.
  const pnpm = process.env.npm_execpath;
  const [command, args] = !pnpm ? ["pnpm", []] : /\.[cm]?js$/.test(pnpm) ? [process.execPath, [pnpm]] : [pnpm, []];
  const build = spawnSync(command, [...args, "--filter", "@agentloop/cli...", "run", "build"], { stdio: "inherit" });
  if (build.status !== 0) {
    // The build printed its errors above: one line more, not a stack of this script.
    process.stderr.write(`demo: the build failed (${build.error?.message ?? `exit code ${build.status}`})\n`);
    process.exit(build.status || 1);
  }
}
// `pnpm demo -- --model x` passes the `--` on (pnpm 12); the CLI drops a leading one too.
const args = process.argv.slice(2);
const demo = spawnSync(
  process.execPath,
  ["packages/cli/dist/main.js", "demo", ...(args[0] === "--" ? args.slice(1) : args)],
  {
    stdio: "inherit",
  },
);
process.exit(demo.status ?? 1);
