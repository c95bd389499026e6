import { readdirSync, readFileSync } from "node:fs";
import { join, posix, sep } from "node:path";
import { describe, expect, it } from "vitest";

// Each package reaches another only through its published name (`@agentloop/...`): no package imports
// another's sources or test files by a relative path. Suites shared between packages' tests live in
// a published package (the store suites in `@agentloop/store-testkit`).

const PACKAGES = join(import.meta.dirname, "../..");
const SCANNED = /\.(?:ts|tsx|mts|mjs|js)$/;

/** Every source, test and example file of every package, as a path under packages/ with `/` separators. */
function files(): string[] {
  return readdirSync(PACKAGES, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) =>
      ["src", "test", "examples"].flatMap((folder) => {
        const root = join(PACKAGES, entry.name, folder);
        let found: string[];
        try {
          found = readdirSync(root, { recursive: true, encoding: "utf8" });
        } catch {
          return [];
        }
        return found
          .filter((file) => SCANNED.test(file) && !file.split(sep).includes("node_modules"))
          .map((file) => posix.join(entry.name, folder, file.split(sep).join("/")));
      }),
    );
}

/** The relative module specifiers of a file: static and dynamic imports, and `new URL(..., import.meta.url)`. */
function relativeSpecifiers(file: string): string[] {
  const text = readFileSync(join(PACKAGES, file), "utf8");
  const imports = [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)];
  const urls = [...text.matchAll(/new URL\(\s*["'](\.{1,2}\/[^"']+)["']\s*,\s*import\.meta\.url/g)];
  return [...imports, ...urls].map((match) => match[1] ?? "");
}

/** The package a path under packages/ lands in, or undefined for one outside every package (the docs, the root). */
function packageOf(path: string, names: ReadonlySet<string>): string | undefined {
  const first = path.split("/")[0] ?? "";
  return names.has(first) ? first : undefined;
}

/** The files whose relative specifiers land in another package, each as `file -> specifier`. */
function crossings(): string[] {
  const all = files();
  const names = new Set(all.map((file) => file.slice(0, file.indexOf("/"))));
  return all.flatMap((file) => {
    const own = packageOf(file, names);
    return relativeSpecifiers(file)
      .filter((specifier) => {
        const target = packageOf(posix.normalize(posix.join(posix.dirname(file), specifier)), names);
        return target !== undefined && target !== own;
      })
      .map((specifier) => `${file} -> ${specifier}`);
  });
}

describe("package borders", () => {
  it("no package imports another's sources or tests by a relative path", () => {
    expect(crossings()).toEqual([]);
  });

  it("reads the files it checks, and would see a crossing", () => {
    const all = files();
    expect(all).toContain("core/src/index.ts");
    expect(all).toContain("sqlite/test/crash.test.ts");
    expect(relativeSpecifiers("sqlite/test/crash.test.ts")).toContain("../src/index.js");
    const names = new Set(["core", "sqlite"]);
    expect(packageOf(posix.normalize(posix.join("sqlite/test", "../../core/test/crash-suite.js")), names)).toBe("core");
    expect(packageOf(posix.normalize(posix.join("cli/test", "../../../docs/guide.md")), names)).toBeUndefined();
  });
});
