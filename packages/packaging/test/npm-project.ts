import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The repository's root, where `packages/` is. */
export const ROOT = join(import.meta.dirname, "../../..");

/** A command's output and exit code; it never throws for a non-zero exit. */
export interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command in `cwd` and returns how it ended. */
export async function exec(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<Outcome> {
  try {
    const options = { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 };
    const { stdout, stderr } = await run(command, args, options);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === "number" ? failed.code : 1,
      stdout: failed.stdout ?? "",
      stderr: failed.stderr ?? "",
    };
  }
}

/** Names and folders of the packages that are published (not `private`). */
export function publicPackages(): { readonly name: string; readonly dir: string }[] {
  const packages = join(ROOT, "packages");
  return readdirSync(packages)
    .map((dir) => ({ dir: join(packages, dir), manifest: join(packages, dir, "package.json") }))
    .map(({ dir, manifest }) => ({
      dir,
      pkg: JSON.parse(readFileSync(manifest, "utf8")) as { name: string; private?: boolean },
    }))
    .filter(({ pkg }) => pkg.private !== true)
    .map(({ dir, pkg }) => ({ name: pkg.name, dir }));
}

/** Packs every published package (as `pnpm publish` would) into a fresh folder; returns each tarball by package name. */
export async function packAll(): Promise<Map<string, string>> {
  const out = mkdtempSync(join(tmpdir(), "agentloop-tarballs-"));
  const tarballs = new Map<string, string>();
  for (const { name, dir } of publicPackages()) {
    const packed = await exec("pnpm", ["pack", "--pack-destination", out], dir);
    if (packed.code !== 0) throw new Error(`pnpm pack failed in ${dir}: ${packed.stderr}`);
    const file = readdirSync(out).find((f) => f.startsWith(`${name.replace("@", "").replace("/", "-")}-`));
    if (file === undefined) throw new Error(`no tarball for ${name}`);
    tarballs.set(name, join(out, file));
  }
  return tarballs;
}

/** A fresh `npm init -y` project (ES modules) in a temp folder, with `specs` installed by plain npm. */
export async function npmProject(specs: readonly string[], extra: readonly string[] = []): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-npm-"));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "app", private: true, type: "module" })}\n`);
  const args = ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...extra, ...specs];
  const installed = await exec("npm", args, dir);
  if (installed.code !== 0) throw new Error(`npm install failed: ${installed.stderr}`);
  return dir;
}
