import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { projects } from "./vitest.workspace.ts";

// CI sets VITEST_JSON_REPORT to a path to count the results from vitest's JSON report.
const jsonReport = process.env.VITEST_JSON_REPORT;

export default defineConfig({
  test: {
    projects,
    // One worker per core: vitest's default leaves one core idle, which on a 2-core machine runs
    // the files one at a time while most of them wait on the processes and servers they start.
    maxWorkers: availableParallelism(),
    ...(jsonReport ? { reporters: ["default", "json"], outputFile: { json: jsonReport } } : {}),
  },
});
