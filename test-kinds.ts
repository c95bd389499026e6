// Which test files are slow: those that start a process, a server, a browser or an install, or
// that say so in a `// slow: <why>` line. The root vitest config runs them as projects of their
// own (`<package>:slow`), queued before the rest so that they run beside it rather than after it;
// `pnpm test:quick` leaves them out. The rule is written in docs/develop.md, "Where a test goes".
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** A line of its own that says why a test is slow: also what puts the longest ones at the head of the queue. */
const SAYS_SLOW = /^\/\/ slow: /m;

/** What a test's own text shows it starts, each with the words of the rule. */
const STARTS: readonly (readonly [RegExp, string])[] = [
  [/^import\s[^;]*?\bfrom\s+["']node:child_process["']/m, "starts a process"],
  [/^import\s[^;]*?\bfrom\s+["']node:(?:http|https|net)["']/m, "starts a server"],
  [/^import\s[^;]*?\bfrom\s+["'](?:playwright-core|playwright)["']/m, "starts a browser"],
  [/^import\s[^;]*?\bfrom\s+["']@agentloop\/store-testkit\/processes["']/m, "starts a process"],
  [SAYS_SLOW, "says it is slow"],
];

/** `@agentloop/store-testkit/servers` also holds `hangGuard`, which starts nothing. */
const SERVERS = /^import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*["']@agentloop\/store-testkit\/servers["']/gm;
const STARTS_NOTHING = new Set(["hangGuard", "type"]);

/** Relative imports, which a test's helpers are reached by. */
const RELATIVE = /(?:\bfrom|\bimport\s*\(?)\s*["'](\.{1,2}\/[^"']+)["']/g;

/** What `text` itself shows it starts (not what it imports does). */
export function startsInText(text: string): string[] {
  const found = STARTS.flatMap(([pattern, what]) => (pattern.test(text) ? [what] : []));
  for (const [, names] of text.matchAll(SERVERS)) {
    const bindings = (names ?? "").split(/[\s,]+/).filter((name) => name !== "");
    if (bindings.some((name) => !STARTS_NOTHING.has(name))) found.push("starts a server");
  }
  return [...new Set(found)];
}

/** The file a relative import names, if it is a test's helper (not a package's code under test). */
function helperOf(from: string, specifier: string): string | undefined {
  const target = resolve(dirname(from), specifier);
  const file = [target.replace(/\.js$/, ".ts"), target, `${target}.ts`].find(
    (candidate) => /\.(?:ts|mjs|js)$/.test(candidate) && existsSync(candidate),
  );
  if (file === undefined) return undefined;
  // A package's own src is the code under test, except the testkit's: its src is test helpers.
  const underSrc = /[\\/]packages[\\/]([^\\/]+)[\\/]src[\\/]/.exec(file);
  if (underSrc !== null && underSrc[1] !== "store-testkit" && !file.includes(".test.")) return undefined;
  return file;
}

/** Why `file` is slow: what it or the helpers it imports start; empty when it starts nothing. */
export function whySlow(file: string, seen: Map<string, string[]> = new Map()): string[] {
  const known = seen.get(file);
  if (known !== undefined) return known;
  seen.set(file, []);
  const text = readFileSync(file, "utf8");
  const why = new Set(startsInText(text));
  for (const [, specifier] of text.matchAll(RELATIVE)) {
    const helper = specifier === undefined ? undefined : helperOf(file, specifier);
    if (helper !== undefined) for (const reason of whySlow(helper, seen)) why.add(reason);
  }
  const found = [...why];
  seen.set(file, found);
  return found;
}

/** Folders no test of ours is in: installed packages, builds, and hidden ones such as `.git`. */
const NOT_TESTS = (name: string) => name === "node_modules" || name === "dist" || name.startsWith(".");

/** Every test file of a package, wherever it is (src/, test/, examples/), as absolute paths: vitest's own include. */
export function testFiles(packageDir: string): string[] {
  return readdirSync(packageDir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(packageDir, entry.name);
    if (entry.isDirectory()) return NOT_TESTS(entry.name) ? [] : testFiles(path);
    return entry.isFile() && entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Whether a test replaces a module (`vi.mock`), which a module graph shared between files would undo. */
export function mocksModules(file: string): boolean {
  return /\bvi\.(?:do)?[mM]ock\(/.test(readFileSync(file, "utf8"));
}

/** A package's test files split into the slow and the rest. `needsServer`: its config starts a server for every file. */
export function splitTests(packageDir: string, needsServer: boolean): { slow: string[]; quick: string[] } {
  const seen = new Map<string, string[]>();
  const slow: string[] = [];
  const quick: string[] = [];
  for (const file of testFiles(packageDir)) {
    const underTest = file.startsWith(join(packageDir, "test") + sep);
    if ((needsServer && underTest) || whySlow(file, seen).length > 0) slow.push(file);
    else quick.push(file);
  }
  return { slow, quick };
}

/** The name of the project that holds a package's slow files. */
export const slowProject = (name: string): string => `${name}:slow`;

/** Whether a project is one of the slow ones. */
export const isSlowProject = (name: string): boolean => name.endsWith(":slow");

/**
 * The slow projects' files first, so that they run beside the quick ones rather than after them
 * (vitest's own order is by project name, which queued the processes of `postgres`, `restate` and
 * `store-testkit` last); among them those that say why they are slow (the longest: a fresh clone
 * has no timings yet), then the longest known (vitest's cache), then the largest file.
 */
export class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const key = (spec: TestSpecification) => `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`;
    const took = (spec: TestSpecification) => this.ctx.cache.getFileTestResults(key(spec))?.duration;
    const size = (spec: TestSpecification) => this.ctx.cache.getFileStats(key(spec))?.size ?? 0;
    const slow = (spec: TestSpecification) => (isSlowProject(spec.project.name) ? 0 : 1);
    const marked = new Map(files.map((spec) => [spec, SAYS_SLOW.test(readFileSync(spec.moduleId, "utf8")) ? 0 : 1]));
    const says = (spec: TestSpecification) => marked.get(spec) ?? 1;
    // As vitest's own order within a project: a file never timed before first, then the longest.
    const cost = (a: TestSpecification, b: TestSpecification): number => {
      const [timedA, timedB] = [took(a), took(b)];
      if (timedA === undefined || timedB === undefined) {
        return timedA === timedB ? size(b) - size(a) : timedA === undefined ? -1 : 1;
      }
      return timedB - timedA;
    };
    return [...files].sort((a, b) => slow(a) - slow(b) || says(a) - says(b) || cost(a, b));
  }
}
