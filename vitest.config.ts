import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { mocksModules, SlowFirst, slowProject, splitTests } from "./test-kinds.ts";
import { packagesWithTests } from "./vitest.workspace.ts";

// CI sets VITEST_JSON_REPORT to a path to count the results from vitest's JSON report.
const jsonReport = process.env.VITEST_JSON_REPORT;

/**
 * Each package's tests as two projects (test-kinds.ts): `<name>`, what starts nothing, run in one
 * module graph per worker (unless a file replaces a module with `vi.mock`); and `<name>:slow`, what starts a process, a server, a browser or an
 * install, each file isolated. `pnpm test:quick` runs the first kind alone.
 */
function projects(): TestProjectInlineConfiguration[] {
  return packagesWithTests().flatMap(({ dir, name }) => {
    const config = join(dir, "vitest.config.ts");
    const needsServer = readFileSync(config, "utf8").includes("globalSetup");
    const { slow, quick } = splitTests(dir, needsServer);
    const files = (list: string[]) => list.map((file) => relative(dir, file));
    const kinds: TestProjectInlineConfiguration[] = [];
    if (quick.length > 0) {
      kinds.push({
        extends: config,
        test: { name, root: dir, include: files(quick), isolate: quick.some(mocksModules) },
      });
    }
    if (slow.length > 0) {
      kinds.push({ extends: config, test: { name: slowProject(name), root: dir, include: files(slow) } });
    }
    return kinds;
  });
}

export default defineConfig({
  test: {
    projects: projects(),
    exclude: configDefaults.exclude,
    sequence: { sequencer: SlowFirst },
    // One worker per core: vitest's default leaves one core idle, which on a 2-core machine runs
    // the files one at a time while most of them wait on the processes and servers they start.
    maxWorkers: availableParallelism(),
    ...(jsonReport ? { reporters: ["default", "json"], outputFile: { json: jsonReport } } : {}),
  },
});
