import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./npm-project.js";

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly repository?: { readonly url?: string; readonly directory?: string };
  readonly homepage?: string;
  readonly keywords?: readonly string[];
  readonly engines?: { readonly node?: string };
  readonly files?: readonly string[];
}

const packages = readdirSync(join(ROOT, "packages"))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(ROOT, "packages", dir, "package.json"), "utf8")) }))
  .filter(({ manifest }) => (manifest as Manifest).private !== true) as { dir: string; manifest: Manifest }[];

// What a registry page shows comes from the manifest and the README alone: the repository's
// docs/ folder is not in the tarball, so a README must not link to it by a relative path.
describe("what a registry page needs, in every published package", () => {
  it("finds the published packages", () => {
    expect(packages.map(({ manifest }) => manifest.name)).toContain("@agentloop/core");
  });

  it.each(packages)("$manifest.name has repository, homepage, keywords and engines", ({ dir, manifest }) => {
    expect(manifest.repository?.url).toMatch(/^(git\+)?https:\/\//);
    expect(manifest.repository?.directory).toBe(`packages/${dir}`);
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.keywords?.length ?? 0).toBeGreaterThan(0);
    expect(manifest.engines?.node).toBe(">=20.19");
  });

  it.each(packages)("$manifest.name's README links nothing outside its tarball by a relative path", ({ dir }) => {
    const readme = join(ROOT, "packages", dir, "README.md");
    expect(existsSync(readme)).toBe(true);
    const relative = [...readFileSync(readme, "utf8").matchAll(/\]\((\.\.\/[^)]*)\)/g)].map((match) => match[1]);
    expect(relative).toEqual([]);
  });
});
