// Bundles the compiled entry points (dist/*.js, from tsc) for Node: one build with shared chunks in
// dist/node/, which package.json's "node" condition points at. Node reads each module it imports
// as a file of its own, and reading core's 178 was about half of a cold import; bundled, they are a
// few files. Bundlers for the browser keep the module-per-file build (the "default" condition),
// whose modules they leave out one by one. One build, so that every entry point shares one copy of
// each class. Names are not kept (`keepNames`): its calls would pin every function of core in a
// server's bundle, and core's errors set their `name` themselves.
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
  sourcemap: true,
  logLevel: "warning",
});
