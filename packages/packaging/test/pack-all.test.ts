import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hangGuard } from "../../../hang-guard.js";
import { exec, npmProject, publicPackages, ROOT } from "./npm-project.js";

// `pnpm pack:all` (docs/before-publishing.md): the packages as the registry would get them, one
// tarball each under a name without its version, installable in a project before they are published.
describe("scripts/pack-all.mjs", () => {
  it(
    "packs every published package, without a workspace: range, and a project installs and runs them",
    async () => {
      const out = mkdtempSync(join(tmpdir(), "agentloop-packed-"));
      const packed = await exec(process.execPath, [join(ROOT, "scripts", "pack-all.mjs"), out], ROOT);
      expect(packed.code, packed.stderr).toBe(0);
      const names = publicPackages().map(({ name }) => `${name.replace(/^@/, "").replace("/", "-")}.tgz`);
      expect(readdirSync(out).sort()).toEqual([...names].sort());
      expect(packed.stdout).toContain(`packed ${names.length} packages into ${out}:`);
      expect(packed.stdout).toContain(`npm install ${join(out, "agentloop-core.tgz")}`);
      for (const name of names) {
        const manifest = await exec("tar", ["-xOzf", join(out, name), "package/package.json"], out);
        expect(manifest.stdout, name).toContain('"name": "@agentloop/');
        expect(manifest.stdout, name).not.toContain("workspace:");
      }
      const app = await npmProject([join(out, "agentloop-core.tgz"), join(out, "agentloop-evals.tgz")]);
      expect(existsSync(join(app, "node_modules/@agentloop/evals/dist"))).toBe(true);
      writeFileSync(
        join(app, "app.mjs"),
        `import { final, runAgent, scriptedModel, ToolRegistry } from "@agentloop/core";
import { evaluate, exactAnswer } from "@agentloop/evals";
const report = await evaluate({
  name: "packed",
  cases: [{ id: "hi", task: "Say hi", expected: "hi" }],
  run: (c, context) => runAgent(c.task, scriptedModel([final("hi")]), new ToolRegistry(), context),
  scorers: [exactAnswer()],
});
console.log(report.passed, report.failed);
`,
      );
      const ran = await exec(process.execPath, ["app.mjs"], app);
      expect(ran).toMatchObject({ code: 0, stdout: "1 0\n", stderr: "" });
    },
    hangGuard(300_000),
  );
});
