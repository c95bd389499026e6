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

// A peer that declares a newer Node than ours is what a Node 20 user hits first: the notes on
// Node versions (docs/develop.md's and the guide's, and the README of the package it is a peer of,
// unless it is an optional one there) name it.
interface Peers {
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>;
}

describe("peers that need a newer Node than the packages", () => {
  const newer = packages.flatMap(({ dir, manifest }) => {
    const { peerDependencies = {}, peerDependenciesMeta = {} } = manifest as Peers;
    return Object.keys(peerDependencies).flatMap((peer) => {
      const installed = join(ROOT, "packages", dir, "node_modules", peer, "package.json");
      if (peer.startsWith("@agentloop/") || !existsSync(installed)) return [];
      const node = (JSON.parse(readFileSync(installed, "utf8")) as Manifest).engines?.node ?? "";
      const major = Number(/^>=\s*(\d+)/.exec(node)?.[1] ?? 0);
      return major > 20 ? [{ dir, peer, major, optional: peerDependenciesMeta[peer]?.optional === true }] : [];
    });
  });
  /** Whether one sentence of `text` names `peer` (in backticks) and Node `major`. */
  const names = (text: string, peer: string, major: number) =>
    text.split(/\.\s/).some((sentence) => sentence.includes(`\`${peer}\``) && sentence.includes(`Node ${major}`));

  it("finds them", () => {
    expect(newer.map(({ peer }) => peer)).toContain("ai");
  });

  it.each(newer)(
    "$peer (a peer of packages/$dir) and its Node $major are named where Node versions are",
    ({ dir, peer, major, optional }) => {
      const develop = readFileSync(join(ROOT, "docs", "develop.md"), "utf8");
      const at = develop.indexOf("## Node versions");
      const chapters = join(ROOT, "docs", "guide");
      const guide = readdirSync(chapters)
        .filter((file) => file.endsWith(".md"))
        .map((file) => readFileSync(join(chapters, file), "utf8"))
        .join("\n");
      const texts: [string, string][] = [
        ["docs/develop.md's Node versions", develop.slice(at, develop.indexOf("\n## ", at + 1))],
        ["the guide (docs/guide/)", guide],
      ];
      if (!optional)
        texts.push([`packages/${dir}/README.md`, readFileSync(join(ROOT, "packages", dir, "README.md"), "utf8")]);
      for (const [where, text] of texts)
        expect(names(text, peer, major), `${where} names ${peer} and Node ${major}`).toBe(true);
    },
  );
});
