// Bundles the compiled entry points (dist/*.js, from tsc) for Node: one build with shared chunks in
// dist/node/, which package.json's "node" condition points at. Node then reads a few files instead
// of one per module, which is most of what importing core costs in a fresh process. Bundlers for
// the browser keep the module-per-file build (the "default" condition): its modules shake out one
// by one. One build, so that every entry point shares one copy of each class.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const packageDir = join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const entryPoints = Object.values(manifest.exports).map((conditions) => {
  const out = conditions.node.replace(/^\.\/dist\/node\//, "").replace(/\.js$/, "");
  return { in: join(packageDir, conditions.default), out };
});
rmSync(join(packageDir, "dist/node"), { recursive: true, force: true });
await build({
  absWorkingDir: packageDir,
  entryPoints,
  outdir: "dist/node",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  // Class and function names stay as written: errors and their messages name them.
  keepNames: true,
  sourcemap: true,
  logLevel: "warning",
});
