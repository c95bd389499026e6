// `pnpm demo`: builds the packages the first time (or when a source file is newer than its
// build), then runs `agentloop demo` with the arguments given. A second run starts at once.
import { execFileSync, spawnSync } from "node:child_process";
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
  execFileSync(command, [...args, "run", "build"], { stdio: "inherit" });
}
const demo = spawnSync(process.execPath, ["packages/cli/dist/main.js", "demo", ...process.argv.slice(2)], {
  stdio: "inherit",
});
process.exit(demo.status ?? 1);
