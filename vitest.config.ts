import { defineConfig } from "vitest/config";
import { projects } from "./vitest.workspace.ts";

// CI sets VITEST_JSON_REPORT to a path to count the results from vitest's JSON report.
const jsonReport = process.env.VITEST_JSON_REPORT;

export default defineConfig({
  test: {
    projects,
    ...(jsonReport ? { reporters: ["default", "json"], outputFile: { json: jsonReport } } : {}),
  },
});
