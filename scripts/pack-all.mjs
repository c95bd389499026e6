// Packs every published package of the workspace as the registry would get it (`pnpm pack`, which
// turns `workspace:` ranges into the versions), into one folder (default `packed/`), each tarball
// under a name without its version (`agentloop-core.tgz`), so that a project can install the
// packages before they are published: `npm install ../agentloop/packed/agentloop-core.tgz`.
// The packages must be built first (`pnpm pack:all` builds them).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const out = resolve(process.argv[2] ?? join(root, "packed"));
mkdirSync(out, { recursive: true });
const packages = readdirSync(join(root, "packages"))
  .map((dir) => join(root, "packages", dir))
  .filter((dir) => existsSync(join(dir, "package.json")))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
  .filter(({ manifest }) => manifest.private !== true);

const unbuilt = packages.filter(({ dir }) => !existsSync(join(dir, "dist")));
if (unbuilt.length > 0) {
  const names = unbuilt.map(({ manifest }) => manifest.name).join(", ");
  console.error(`pack-all: not built yet: ${names}; run 'pnpm run build' first (or 'pnpm pack:all', which does)`);
  process.exit(1);
}

const packed = [];
for (const { dir, manifest } of packages) {
  const scratch = mkdtempSync(join(out, ".pack-"));
  execFileSync("pnpm", ["pack", "--pack-destination", scratch], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  const [tarball] = readdirSync(scratch).filter((name) => name.endsWith(".tgz"));
  if (tarball === undefined) throw new Error(`pack-all: pnpm pack made no tarball in ${dir}`);
  const name = `${manifest.name.replace(/^@/, "").replace("/", "-")}.tgz`;
  renameSync(join(scratch, tarball), join(out, name));
  rmSync(scratch, { recursive: true, force: true });
  packed.push({ name: manifest.name, version: manifest.version, file: join(out, name) });
}

const shown = (file) => relative(process.cwd(), file) || file;
console.log(`packed ${packed.length} packages into ${out}:`);
for (const { name, version, file } of packed) console.log(`  ${name}@${version}  ${shown(file)}`);
console.log("install the ones you use (with the @agentloop packages they depend on) in your project, e.g.:");
const core = packed.find(({ name }) => name === "@agentloop/core");
console.log(`  npm install ${core === undefined ? "<tarball>" : core.file}`);
