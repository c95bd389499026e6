import { readdirSync, readFileSync } from "node:fs";
import { join, posix, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startsInText } from "../../../test-kinds.js";

/** The repository, two levels above this package. */
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

// Where a test goes (docs/develop.md, "Where a test goes"): beside its module in src/ when it tests
// that one module in the process, with nothing started; in the package's test/ when it starts a
// process, a server or a browser, or reads the docs. This holds the first half of the rule; what
// "starts" means is test-kinds.ts's, the one the root vitest config splits the slow files by.

/** Reading the docs, which a test beside the code must not do either. */
const READS_DOCS = /["'`](?:\.\.\/)+(?:docs\/|README\.md)|["']docs["']\s*,/;

/** Every `*.test.ts` under a package's src/, as a path under packages/ with `/` separators. */
function besideTheCode(): string[] {
  const packages = join(ROOT, "packages");
  return readdirSync(packages).flatMap((name) => {
    let found: string[];
    try {
      found = readdirSync(join(packages, name, "src"), { recursive: true, encoding: "utf8" });
    } catch {
      return [];
    }
    return found
      .filter((file) => file.endsWith(".test.ts"))
      .map((file) => posix.join(name, "src", file.split(sep).join("/")));
  });
}

/** What `text` does that a test beside the code must not. */
export function misplaced(text: string): string[] {
  return [...startsInText(text), ...(READS_DOCS.test(text) ? ["reads the docs"] : [])];
}

describe("tests beside the code", () => {
  it("start no process, server or browser and read no docs: those live in test/", () => {
    const files = besideTheCode();
    expect(files.length).toBeGreaterThan(40);
    const wrong = files.flatMap((file) =>
      misplaced(readFileSync(join(ROOT, "packages", file), "utf8")).map((what) => `${file} ${what}`),
    );
    expect(wrong).toEqual([]);
  });

  it("sees each of them", () => {
    expect(misplaced('import { spawnSync } from "node:child_process";')).toEqual(["starts a process"]);
    expect(misplaced('import { createServer } from "node:http";')).toEqual(["starts a server"]);
    expect(misplaced('import { chromium } from "playwright-core";')).toEqual(["starts a browser"]);
    expect(misplaced('join(import.meta.dirname, "..", "docs", "guide")')).toEqual(["reads the docs"]);
    expect(misplaced('new URL("../../../README.md", import.meta.url)')).toEqual(["reads the docs"]);
    expect(misplaced('import { readFileSync } from "node:fs";')).toEqual([]);
  });
});
