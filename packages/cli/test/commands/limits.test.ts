import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/exit-codes.js";
import { cli, fixture, tempDir } from "../cli.js";
import { sh } from "../shell.js";

const dir = tempDir();
const weather = fixture("weather-script.json");
const EXAMPLE = fileURLToPath(new URL("../../examples/weather-script.json", import.meta.url));

/** A tools module like a real MCP server's: 14 tools whose descriptions cost about 2,000 tokens a prompt. */
function manyTools(): string {
  const path = join(dir, "many-tools.mjs");
  const text = "Reads, lists or edits files under the allowed directories; paths are relative to the root. ".repeat(6);
  writeFileSync(
    path,
    `export default function register(registry) {
  const CELSIUS = { Pune: 30, Delhi: 35 };
  registry.register("get_weather", "Current temperature of one city in Celsius.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, ({ city }) => ({ city, celsius: CELSIUS[city] }));
  registry.register("c_to_f", "Convert Celsius to Fahrenheit.",
    { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] }, ({ celsius }) => (celsius * 9) / 5 + 32);
  for (let i = 0; i < 12; i++) registry.register("file_tool_" + i, ${JSON.stringify(text)},
    { type: "object", properties: { path: { type: "string" } }, required: ["path"] }, () => "ok");
}
`,
  );
  return path;
}

describe("agentloop run's limits fit real models and servers", () => {
  it(
    "a 4-step run with 14 tools finishes under the CLI's defaults, where runAgent's own (8 steps, 4,000 tokens) stop it",
    async () => {
      const tools = manyTools();
      const base = ["run", "--tools", tools, "--script", weather, "--store", join(dir, "runs")];
      const spec = await cli([...base, "--run-id", "spec", "--max-steps", "8", "--token-budget", "4000", "How hot?"]);
      expect(spec.code, spec.stderr).toBe(EXIT_CODES.token_budget);
      const ran = await cli([...base, "--run-id", "defaults", "How hot?"]);
      expect(ran.stderr).toBe("");
      expect(ran.code).toBe(EXIT_CODES.done);
      expect(ran.stdout).toMatch(/^progress {2}done · step 4 of 50 · tokens \d+ of 200000$/m);
      const help = await cli(["run", "--help"]);
      expect(help.stdout).toContain("--max-steps N            model calls allowed (default 50; runAgent's own: 8)");
    },
    hangGuard(120_000),
  );
});

describe("a run stopped by a limit says how to go on, in commands that run as printed", () => {
  it.each([
    ["step_limit", "--max-steps", "2", "model calls", "4"],
    ["token_budget", "--token-budget", "400", "budget of 400 tokens", "800"],
  ])(
    "%s",
    async (status, flag, limit, why, raised) => {
      const log = join(dir, "runs", `${status}.jsonl`);
      const base = ["--tools", fixture("tools.mjs"), "--script", EXAMPLE];
      const ran = await cli([
        "run",
        ...base,
        "--store",
        join(dir, "runs"),
        "--run-id",
        status,
        flag,
        limit,
        "How hot?",
      ]);
      expect(ran.code).toBe(EXIT_CODES[status as "step_limit" | "token_budget"]);
      expect(ran.stdout).toMatch(
        new RegExp(`^stopped  the run used its .*${why} \\(${flag} ${limit}\\); to go on`, "m"),
      );
      const raise = /^raise {4}(.*)$/m.exec(ran.stdout)?.[1] ?? "";
      expect(raise).toContain(`fork ${log} ${flag} ${raised} --run-id ${status}-more && `);
      const chat = /^chat {5}(.*?) {3}\(a new turn/m.exec(ran.stdout)?.[1] ?? "";
      expect(chat).toMatch(/ chat .* 'Go on\.'$/);

      const raised_ = await sh(raise, process.cwd());
      expect(raised_.stderr).toBe("");
      expect(raised_.code).toBe(0);
      expect(raised_.stdout).toContain("answer   It is 86 F in Pune.");
      const chatted = await sh(chat, process.cwd());
      expect(chatted.stderr).toBe("");
      expect(chatted.code).toBe(0);
      expect(chatted.stdout).toContain("answer   It is 86 F in Pune.");
    },
    120_000,
  );
});
