import { readdirSync, readFileSync } from "node:fs";
import { join, posix, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./npm-project.js";

// Where a test goes (docs/develop.md, "Where a test goes"): beside its module in src/ when it tests
// that one module in the process, with nothing started; in the package's test/ when it starts a
// process, a server or a browser, or reads the docs. This holds the first half of the rule.

/** What a test beside the code must not do, each with the words of the rule it breaks. */
const STARTS = [
  [/\bfrom\s+["']node:child_process["']/, "starts a process"],
  [/\bfrom\s+["']node:(?:http|https|net)["']/, "starts a server"],
  [/\bfrom\s+["'](?:playwright-core|playwright)["']/, "starts a browser"],
  [/["'`](?:\.\.\/)+(?:docs\/|README\.md)|["']docs["']\s*,/, "reads the docs"],
] as const;

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
  return STARTS.flatMap(([pattern, what]) => (pattern.test(text) ? [what] : []));
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
