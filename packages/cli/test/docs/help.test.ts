import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cli } from "../cli.js";
import { agentloop } from "../in-process.js";

const COMMANDS = ["demo", "run", "show", "replay", "resume", "graph"];

describe("help", () => {
  it("agentloop --help lists every command and exits 0", async () => {
    const { code, stdout, stderr } = await cli(["--help"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    for (const name of COMMANDS) expect(stdout).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
  });

  it("agentloop with no arguments prints the same help", async () => {
    const [bare, help] = await Promise.all([cli([]), cli(["--help"])]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toBe(help.stdout);
  });

  it.each(COMMANDS)("agentloop %s --help shows its usage and options", async (name) => {
    const [long, short, topic] = await Promise.all([cli([name, "--help"]), cli([name, "-h"]), cli(["help", name])]);
    expect(long.code).toBe(0);
    expect(long.stderr).toBe("");
    expect(long.stdout).toMatch(new RegExp(`^Usage: agentloop ${name}`));
    expect(long.stdout).toContain("-h, --help");
    expect(short.stdout).toBe(long.stdout);
    expect(topic.stdout).toBe(long.stdout);
  });

  it("serve and studio --help tell --authorize in the same words; serve's tells --tenant-budget and what it needs; the README both", async () => {
    const [serve, studio] = await Promise.all([cli(["serve", "--help"]), cli(["studio", "--help"])]);
    // The flag's lines: from its own to the next flag's.
    const authorizeLines = (help: string) => /^ {2}--authorize[\s\S]*?(?=^ {2}-)/m.exec(help)?.[0];
    const authorize = authorizeLines(serve.stdout);
    expect(authorize).toMatch(/^ {2}--authorize <module> +who is asking: .*default export/s);
    expect(authorizeLines(studio.stdout)).toBe(authorize);
    expect(studio.stdout).toMatch(/^Usage: agentloop studio[^\n]*\n[^\n]*\n\s+\[--authorize <module>\]/);
    expect(serve.stdout).toMatch(/^ {2}--tenant-budget <file> +spending ceilings per tenant/m);
    expect(serve.stdout).toContain("Needs --authorize and --pricing");
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    for (const text of [
      "`--authorize <module>`",
      "`--tenant-budget <file>`",
      "agentloop serve --ui-stream --tools ./tools.mjs --model … --authorize",
    ]) {
      expect(readme).toContain(text);
    }
  });

  it("--version prints the version", async () => {
    const { code, stdout, stderr } = await cli(["--version"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^agentloop \d+\.\d+\.\d+\n$/);
  });
});

describe("a leading '--', as pnpm 12 and npm pass it on to a script", () => {
  it("is dropped before the command and before its options; a later '--' still ends the options", async () => {
    const before = await agentloop(["--", "graph", "--help"]);
    expect(before.stderr).toBe("");
    expect(before.stdout).toMatch(/^Usage: agentloop graph/);
    const after = await agentloop(["graph", "--", "--format", "json"]);
    expect(after.stderr).toBe("");
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toHaveProperty("id", "agent");
    const later = await agentloop(["graph", "--format", "json", "--", "extra"]);
    expect(later).toMatchObject({
      code: 2,
      stderr: "agentloop: unexpected argument 'extra'; see 'agentloop graph --help'\n",
    });
  });
});
