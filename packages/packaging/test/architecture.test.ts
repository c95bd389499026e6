import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { internalReads, packageFiles } from "./internal-reads.js";
import { ROOT } from "./npm-project.js";

// slow: it parses every source file of every package.

// This package's own sample of what is refused is left out.
const outsideCore = readdirSync(join(ROOT, "packages")).filter((dir) => dir !== "core" && dir !== "packaging");

// Outside core a run is read through the fold (`RunFold`, `positionOf`), the result and the log:
// the machine's context may change shape without a package around it noticing otherwise.
describe("packages outside core read runs through the fold's position, never the machine's internals", () => {
  it("finds the packages and their files", () => {
    expect(outsideCore).toEqual(expect.arrayContaining(["cli", "otel", "restate"]));
    expect(packageFiles(join(ROOT, "packages", "cli")).length).toBeGreaterThan(50);
  });

  it("no module outside core reads snapshot.context, the transcript, the call batch or pendingRequests", () => {
    const files = outsideCore.flatMap((dir) => packageFiles(join(ROOT, "packages", dir)));
    expect(internalReads(files, ROOT)).toEqual([]);
  });

  it("the check sees such a read", () => {
    const sample = join(ROOT, "packages", "packaging", "fixtures", "reads-internals.ts");
    expect(internalReads([sample], ROOT)).toEqual([
      "packages/packaging/fixtures/reads-internals.ts:2 imports pendingRequests",
      "packages/packaging/fixtures/reads-internals.ts:6 reads replayRun([]).context (AgentContext)",
      "packages/packaging/fixtures/reads-internals.ts:7 reads context.transcript.items (a member of Transcript)",
      "packages/packaging/fixtures/reads-internals.ts:7 reads context.transcript (Transcript)",
      "packages/packaging/fixtures/reads-internals.ts:11 takes context (AgentContext)",
    ]);
  });
});
