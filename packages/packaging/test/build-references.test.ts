import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** The repository, two levels above this package. */
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const PACKAGES = join(ROOT, "packages");

// The build is incremental (docs/develop.md, "The quick tests and the slow ones"): `tsc -b` builds a
// package again when a package its tsconfig.build.json references changed, and only then. A package
// its code imports but its build does not reference would be left built against the old one, so
// every import of a workspace package in src/ needs its reference.

/** The workspace packages (by folder) a package's non-test sources import, statically or not. */
function importedPackages(folder: string): string[] {
  const src = join(PACKAGES, folder, "src");
  const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter(
    (file) => /\.tsx?$/.test(file) && !file.endsWith(".test.ts") && !file.split(sep).includes("client"),
  );
  const found = new Set<string>();
  for (const file of files) {
    for (const match of readFileSync(join(src, file), "utf8").matchAll(
      /(?:from |import\()["']@agentloop\/([a-z0-9-]+)/g,
    )) {
      if (match[1] !== undefined && match[1] !== folder) found.add(match[1]);
    }
  }
  return [...found].sort();
}

interface BuildConfig {
  readonly compilerOptions?: { readonly tsBuildInfoFile?: string; readonly composite?: boolean };
  readonly references?: readonly { readonly path: string }[];
}

function buildConfig(folder: string): BuildConfig {
  return JSON.parse(readFileSync(join(PACKAGES, folder, "tsconfig.build.json"), "utf8")) as BuildConfig;
}

interface Manifest {
  readonly private?: boolean;
  readonly files?: readonly string[];
}

function manifest(folder: string): Manifest {
  return JSON.parse(readFileSync(join(PACKAGES, folder, "package.json"), "utf8")) as Manifest;
}

const BUILT = readdirSync(PACKAGES).filter((folder) => existsSync(join(PACKAGES, folder, "tsconfig.build.json")));

const PUBLISHED = BUILT.filter((folder) => manifest(folder).private !== true);

describe("the incremental build", () => {
  it("finds the packages it checks", () => {
    expect(BUILT).toEqual(expect.arrayContaining(["core", "cli", "sqlite", "restate"]));
    expect(importedPackages("cli")).toEqual(expect.arrayContaining(["core", "mcp", "sqlite"]));
  });

  it.each(BUILT)("%s's build references every workspace package its sources import", (folder) => {
    const referenced = (buildConfig(folder).references ?? []).map((reference) =>
      reference.path.replace(/^\.\.\/([^/]+)\/tsconfig\.build\.json$/, "$1"),
    );
    expect(referenced.sort()).toEqual(importedPackages(folder));
  });

  it.each(BUILT)("%s keeps what the build knows in dist/, where deleting dist/ forgets it", (folder) => {
    expect(buildConfig(folder).compilerOptions?.tsBuildInfoFile).toBe("dist/tsconfig.build.tsbuildinfo");
  });

  it.each(PUBLISHED)("%s packs no build information", (folder) => {
    expect(manifest(folder).files).toContain("!dist/*.tsbuildinfo");
  });
});
