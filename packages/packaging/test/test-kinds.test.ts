import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import { mocksModules, SlowFirst, splitTests, startsInText, testFiles, whySlow } from "../../../test-kinds.js";

/** The repository, two levels above this package. */
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

// The root vitest config splits each package's tests by these rules (`<name>` and `<name>:slow`);
// `pnpm test:quick` runs the first kind alone, so a slow file read as quick would start a process,
// a server or a browser in it.

const at = (path: string) => join(ROOT, "packages", path);

describe("which tests are slow", () => {
  it("sees what a test's own text starts, and that hangGuard starts nothing", () => {
    expect(startsInText('import { spawn } from "node:child_process";')).toEqual(["starts a process"]);
    expect(startsInText('import { chromium } from "playwright-core";')).toEqual(["starts a browser"]);
    expect(startsInText('import { describeQuestionCrash } from "@agentloop/store-testkit/processes";')).toEqual([
      "starts a process",
    ]);
    expect(startsInText('import { hangGuard } from "@agentloop/store-testkit/servers";')).toEqual([]);
    expect(
      startsInText('import {\n  hangGuard,\n  startTestPostgres,\n} from "@agentloop/store-testkit/servers";'),
    ).toEqual(["starts a server"]);
    expect(startsInText("// slow: it writes a log of more than 512 MiB.\n")).toEqual(["says it is slow"]);
    expect(startsInText('import { readFileSync } from "node:fs";')).toEqual([]);
  });

  it("follows a test's own helpers, not the package's code under test", () => {
    // The crash test starts its child through a helper of test/.
    expect(whySlow(at("core/test/agent-tools/agent-crash.test.ts"))).not.toEqual([]);
    expect(whySlow(at("core/test/graph/graph.test.ts"))).toEqual([]);
  });

  it("puts processes, browsers, installs, servers and the 512 MiB log among the slow, the graph walks among the rest", () => {
    const core = splitTests(at("core"), false);
    expect(core.slow).toContain(at("core/test/log/jsonl-large.test.ts"));
    expect(core.slow).toContain(at("core/test/handoffs/handoff-crash.test.ts"));
    expect(core.quick).toContain(at("core/test/graph/graph.test.ts"));
    expect(core.quick).toContain(at("core/test/properties/properties-logs.test.ts"));
    expect(splitTests(at("packaging"), false).slow).toContain(at("packaging/test/install.test.ts"));
    expect(splitTests(at("cli"), false).slow).toContain(at("cli/test/studio/studio-browser.test.ts"));
    // A package whose config starts a server for its files: test/ is slow, src/ beside the code is not.
    const postgres = splitTests(at("postgres"), true);
    expect(postgres.slow).toContain(at("postgres/test/postgres-store.test.ts"));
    expect(postgres.quick.every((file) => file.includes("/src/"))).toBe(true);
  });

  it("splits every test file of a package into one kind, losing none, those outside src/ and test/ too", () => {
    expect(testFiles(at("store-testkit"))).toContain(at("store-testkit/examples/memory-store.test.ts"));
    for (const name of ["core", "cli", "store-testkit"]) {
      const all = testFiles(at(name));
      const { slow, quick } = splitTests(at(name), name === "cli");
      expect(all.length).toBeGreaterThan(5);
      expect([...slow, ...quick].sort()).toEqual([...all].sort());
    }
  });

  it("keeps a file that replaces a module in an isolated module graph", () => {
    expect(mocksModules(at("store-testkit/test/jsonl-held-file.test.ts"))).toBe(true);
    expect(mocksModules(at("core/test/graph/graph.test.ts"))).toBe(false);
  });

  it("queues the slow files first, those that say so at their head, then the longest known, then the largest", async () => {
    const timed: Record<string, number> = {
      "core:slow:packages/core/test/agent-actor/agent-actor-restore.test.ts": 9_000,
    };
    const ctx = {
      config: { root: at("..") },
      cache: {
        getFileTestResults: (key: string) =>
          timed[key] === undefined ? undefined : { duration: timed[key], failed: false },
        getFileStats: (key: string) => ({ size: key.length }),
      },
    } as unknown as Vitest;
    const spec = (project: string, path: string) =>
      ({ project: { name: project }, moduleId: at(path) }) as unknown as TestSpecification;
    const files = [
      spec("core", "core/test/graph/graph.test.ts"),
      spec("core:slow", "core/test/log/lock-file.test.ts"),
      spec("core:slow", "core/test/agent-actor/agent-actor-restore.test.ts"),
      spec("core:slow", "core/test/log/jsonl-large.test.ts"),
    ];
    const order = (await new SlowFirst(ctx).sort(files)).map((file) => file.moduleId);
    expect(order).toEqual([
      at("core/test/log/jsonl-large.test.ts"),
      at("core/test/log/lock-file.test.ts"),
      at("core/test/agent-actor/agent-actor-restore.test.ts"),
      at("core/test/graph/graph.test.ts"),
    ]);
  });
});
