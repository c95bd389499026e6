import { chmodSync, copyFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, fixture, tempDir } from "../cli.js";
import { sh, userEnv } from "../shell.js";

/** A project with agentloop installed locally (linked in node_modules/.bin, as npm does), and one globally (on PATH). */
function project(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir();
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", private: true }));
  mkdirSync(join(dir, "node_modules/.bin"), { recursive: true });
  mkdirSync(join(dir, "global-bin"));
  chmodSync(CLI, 0o755);
  symlinkSync(CLI, join(dir, "node_modules/.bin/agentloop"));
  copyFileSync(fixture("tools.mjs"), join(dir, "tools.mjs"));
  const replies = [
    { content: "", toolCalls: [{ id: "call_1", name: "send_report", args: { to: "you@example.com" } }] },
    { content: "Sent.", toolCalls: [] },
  ];
  writeFileSync(join(dir, "mail.json"), JSON.stringify(replies));
  return { dir, env: userEnv() };
}

const RUN = "run --tools ./tools.mjs --script mail.json --store runs";

describe("hints run as printed, however agentloop was started", () => {
  const { dir, env } = project();
  it.each([
    ["npx, with a local install", "npx agentloop", "npx agentloop"],
    ["pnpm exec, with a local install", "pnpm exec agentloop", "pnpm exec agentloop"],
    ["by path, from the repository", `node ${CLI}`, `node ${CLI}`],
    ["a global install, on PATH", "agentloop", "agentloop"],
  ])(
    "%s",
    async (way, start, printed) => {
      const id = way.replaceAll(/\W+/g, "-");
      // The global install: a link on PATH, in a directory of its own.
      const shellEnv = start === "agentloop" ? { ...env, PATH: `${join(dir, "global-bin")}:${env.PATH ?? ""}` } : env;
      if (start === "agentloop") symlinkSync(CLI, join(dir, "global-bin/agentloop"));
      const paused = await sh(`${start} ${RUN} --run-id ${id} "Mail the report."`, dir, shellEnv);
      expect(paused.code, paused.stderr).toBe(5);
      const approve = /^approve {2}(.*)$/m.exec(paused.stdout)?.[1] ?? "";
      expect(approve).toBe(
        `${printed} resume runs/${id}.jsonl --tools ./tools.mjs --script mail.json --approve call_1`,
      );
      const resumed = await sh(approve, dir, shellEnv);
      expect(resumed.stderr).toBe("");
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toContain("answer   Sent.");
      const show = /^see it {4}(.*?) {3}\(/m.exec(paused.stdout)?.[1] ?? "";
      expect(show).toBe(`${printed} show runs/${id}.jsonl`);
      const shown = await sh(show, dir, shellEnv);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain("answer   Sent.");
    },
    120_000,
  );
});
