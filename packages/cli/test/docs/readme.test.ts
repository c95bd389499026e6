import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, cli, fixture, tempDir } from "../cli.js";
import { docCommands, ROOT } from "../doc-commands.js";
import { startAnswerServer } from "../openai-answer-server.js";
import { sh, userEnv } from "../shell.js";

// slow: it runs every command of the READMEs and docs as written.

const PREFIX = "node packages/cli/dist/main.js ";

/** The commands of the README's "See a run" block, as written. */
function seeARun(): string[][] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = /## See a run[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line.startsWith(PREFIX))
    .map((line) => [...line.slice(PREFIX.length).matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? ""));
}

const made = [join(ROOT, ".agentloop/runs/pune.jsonl"), join(ROOT, "report.html")];
// The commands keep their log in the root's .agentloop/runs, as written: a clone that had none keeps none.
const hadStore = existsSync(join(ROOT, ".agentloop"));
afterAll(() => {
  for (const file of made) rmSync(file, { force: true });
  if (!hadStore) rmSync(join(ROOT, ".agentloop"), { recursive: true, force: true });
});

describe("the README's 'See a run' commands", () => {
  it(
    "run as written, from the repository's root, one after the other",
    async () => {
      const commands = seeARun();
      expect(commands.map((words) => words[0])).toEqual(["run", "chat", "show", "show", "list", "graph"]);
      for (const file of made) rmSync(file, { force: true });
      for (const words of commands) {
        const ran = await cli(words, { cwd: ROOT });
        expect(ran.stderr, words.join(" ")).toBe("");
        expect(ran.code, words.join(" ")).toBe(0);
      }
      expect(existsSync(join(ROOT, "report.html"))).toBe(true);
      const shown = await cli(["replay", ".agentloop/runs/pune.jsonl"], { cwd: ROOT });
      expect(shown.stdout).toContain("answer   Delhi is warmer: 35 C.");
    },
    hangGuard(120_000),
  );
});

/**
 * The commands of the docs that this file does not run as written, each with the test that does
 * (or the check made here instead) and why: a placeholder, a missing tool, minutes of benchmark.
 */
const CHECKED_ELSEWHERE: Readonly<Record<string, string>> = {
  "npm_config_nodedir=/usr npx -y pnpm@12.4.2 install --frozen-lockfile && npx -y pnpm@12.4.2 demo":
    "run as written on a fresh clone by fresh-clone.test.ts",
  "npx -y pnpm@12.4.2 demo": "run as written on the same fresh clone by fresh-clone.test.ts",
  "npm_config_nodedir=/usr npx -y pnpm@12.4.2 install --frozen-lockfile && npx -y pnpm@12.4.2 setup:browser && npx -y pnpm@12.4.2 test":
    "the test run itself: .ci/run runs these steps (checked below)",
  "npm_config_nodedir=/usr pnpm install": "the install every test run starts from (.ci/run, checked below)",
  'agentloop run --mcp "npx -y my-mcp-server --root ." --mcp-url http://127.0.0.1:3000/mcp --model openai:gpt-4o-mini "Tidy up."':
    "a placeholder server: run below with --help, which parses every flag; mcp.test.ts runs real MCP servers",
  "agentloop graph --format dot --run runs/pune.jsonl | dot -Tsvg > pune.svg":
    "Graphviz is not installed here: the part before the pipe runs below",
  "pnpm pack:all":
    "builds and packs every package: packaging's pack-all.test.ts runs its script and an app installed from the tarballs",
  "pnpm bench": "a benchmark of minutes, never in tests: its script is checked below",
  "pnpm bench --tiny": "builds every package first: its script is checked below",
  "pnpm --filter @agentloop/bench profile:steps": "a CPU profile: its script is checked below",
  "pnpm --filter @agentloop/bench profile:replay": "a CPU profile: its script is checked below",
  "pnpm --filter @agentloop/bench bench:stores [--sqlite]":
    "a benchmark of minutes, run on each Node by hand: its script is checked below",
  "pnpm bench:compare <git-ref> <git-ref>": "placeholders for two commits: its script is checked below",
  "node scripts/compare-serving.mjs <git-ref>":
    "a placeholder for a commit: a comparison of minutes, run by hand; its numbers are in docs/benchmarks.md",
  "node packages/cli/dist/main.js studio":
    "a server that runs until Ctrl-C: studio-server.test.ts and studio-browser.test.ts start it the same way, on --port 0",
  "agentloop studio --store .agentloop/runs":
    "a server that runs until Ctrl-C: studio-server.test.ts starts it on a store directory, on --port 0",
  "agentloop studio --store runs.db --tools ./tools.mjs --model openai:gpt-4o-mini":
    "a server with a real model: studio-browser.test.ts starts it with --tools and --script; studio-watch.test.ts watches a SQLite store",
  "pnpm --filter @agentloop/bench bench:studio [--tiny]":
    "a benchmark in Chromium, run by hand: its script is checked below",
  "pnpm --filter @agentloop/bench bench:processes [--tiny]":
    "a benchmark of minutes that starts a PostgreSQL, run by hand: its script is checked below",
  "pnpm --filter @agentloop/bench bench:studio-postgres [--tiny]":
    "a benchmark of minutes that starts a PostgreSQL, run by hand: its script is checked below",
  "pnpm --filter @agentloop/bench bench:compaction [--tiny]":
    "a benchmark of a minute, run by hand: its script is checked below, and bench.test.ts runs it with --tiny",
  "pnpm --filter @agentloop/bench bench:evals [--tiny]":
    "a benchmark run by hand: its script is checked below, and evals-bench.test.ts runs it with --tiny",
  "pnpm --filter @agentloop/bench bench:ai-sdk-model [--tiny]":
    "a benchmark run by hand: its script is checked below, and ai-sdk-model-bench.test.ts runs it with --tiny",
  "pnpm --filter @agentloop/bench bench:memory [--tiny]":
    "a benchmark of minutes, run by hand: its script is checked below, and bench.test.ts runs it with --tiny",
  "pnpm --filter @agentloop/bench bench:stores --live [--tiny]":
    "a benchmark of minutes that starts a PostgreSQL, run by hand: its script is checked below",
  "pnpm --filter @agentloop/bench bench:weight [--tiny]":
    "a benchmark run by hand: its script is checked below, and weight.test.ts holds the bundles it measures",
  "pnpm --filter @agentloop/bench bench:run-cost [--lengths 10,100] [dir ...]":
    "a benchmark run by hand: its script is checked below, and bench.test.ts runs it with --tiny",
  "pnpm --filter @agentloop/bench bench:ui-stream [--tiny]": "a benchmark run by hand: its script is checked below",
  "pnpm --filter @agentloop/bench bench:ag-ui [--tiny]": "a benchmark run by hand: its script is checked below",
  "pnpm --filter @agentloop/bench bench:blobs [--tiny]":
    "a benchmark run by hand: its script is checked below; core's blobs.test.ts holds the size it measures",
  "pnpm chat-page":
    "a dev server that runs until Ctrl-C: ai-sdk's chat-page.test.ts starts the same page and drives it in Chromium",
  "agentloop serve --ag-ui --tools ./tools.mjs --model openai:gpt-4.1-mini":
    "a server with a real model, until Ctrl-C: serve.test.ts starts --ag-ui with --tools and --script, on --port 0",
  "agentloop serve --mcp --name weather --tools ./tools.mjs --model …":
    "a server until Ctrl-C, a placeholder model: serve.test.ts starts --mcp --name weather with --script, on --port 0",
  "agentloop serve --mcp --stdio --tools ./tools.mjs --model …":
    "a stdio server, a placeholder model: mcp's serve-agent.test.ts serves the same agent to the SDK's client",
  "agentloop serve --a2a --name weather --tools ./tools.mjs --model …":
    "a server until Ctrl-C, a placeholder model: serve-a2a.test.ts starts --a2a --name weather with --script, on --port 0",
  "agentloop serve --ui-stream --tools ./tools.mjs --model …":
    "a server until Ctrl-C, a placeholder model: serve.test.ts starts --ui-stream with --script, on --port 0",
  'agentloop run --tools ./tools.mjs --model openai:gpt-4o-mini --memory memory.db "Call me Ana, please."':
    "a real model: memory.test.ts runs run --memory twice with --script and checks that the second run remembers",
  'agentloop run --tools ./tools.mjs --model openai:gpt-4o-mini --memory memory.db "What is my name?"':
    "the second run of the pair above: memory.test.ts runs it with --script",
  "agentloop serve --ui-stream --tools ./tools.mjs --model … --authorize ./authorize.mjs --pricing prices.json --tenant-budget budgets.json":
    "a server until Ctrl-C, a placeholder model: serve-tenants.test.ts starts it with a bearer-token --authorize module and --script, on --port 0",
  "pnpm --filter @agentloop/restate demo -- --register http://127.0.0.1:9070":
    "run as written below with no Restate server on 9070: it must get past its arguments; restate's demo.test.ts registers the demo with a real server",
};

const MCP_COMMAND =
  'agentloop run --mcp "npx -y my-mcp-server --root ." --mcp-url http://127.0.0.1:3000/mcp --model openai:gpt-4o-mini "Tidy up."';

/** Commands that install packages from the registry: not run (they change a project); the names are checked. */
const INSTALL = /^(pnpm add|npm install|npm i) /;
/** The guide's requests to a Restate server on its default ports: restate's demo.test.ts runs them as written against a real server, its ports put in. */
const RESTATE_REQUEST = /^curl -s (-X POST )?localhost:(8080|9070)\//;
/** The README's "See a run" commands, run above. */
const SEE_A_RUN = /^node packages\/cli\/dist\/main\.js (run|chat|show|list|graph) /;

/** The CLI README's commands, in order, run as written in a project with `agentloop` installed. */
const CLI_README_RUNS = [
  'agentloop run --tools ./tools.mjs --model openai:gpt-4o-mini "How hot is Pune?"',
  'agentloop run --tools ./tools.mjs --script replies.json --store runs --run-id pune "How hot is Pune?"',
  'agentloop run --tools ./tools.mjs --model openai:gpt-4o-mini --run-id pune "How hot is Pune?"',
  'agentloop chat .agentloop/runs/pune.jsonl --tools ./tools.mjs --model openai:gpt-4o-mini "And in Fahrenheit?"',
  "agentloop show runs/pune.jsonl",
  "agentloop replay runs/pune.jsonl --json",
  "agentloop resume runs/pune.jsonl --tools ./tools.mjs --script rest.json",
  "agentloop resume runs/mail.jsonl --tools ./tools.mjs --model openai:gpt-4o-mini --approve call_1",
  'agentloop resume runs/mail.jsonl --tools ./tools.mjs --model openai:gpt-4o-mini --deny call_1 --reason "not today"',
  "agentloop graph > agent.mmd",
];

function howChecked(command: string): string | undefined {
  if (CHECKED_ELSEWHERE[command] !== undefined) return CHECKED_ELSEWHERE[command];
  if (CLI_README_RUNS.includes(command)) return "run as written below";
  if (command === "node packages/cli/dist/main.js demo") return "run as written below";
  if (SEE_A_RUN.test(command) || command === "node packages/cli/dist/main.js list") return "run as written above";
  if (INSTALL.test(command)) return "the packages it names are checked below";
  if (RESTATE_REQUEST.test(command))
    return "run by restate's demo.test.ts against a real Restate server, with its ports";
  return undefined;
}

/** A project where `agentloop` is installed (on PATH, as npm links it) with the files the README's commands name. */
function project(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir();
  mkdirSync(join(dir, "bin"));
  chmodSync(CLI, 0o755);
  symlinkSync(CLI, join(dir, "bin", "agentloop"));
  copyFileSync(fixture("tools.mjs"), join(dir, "tools.mjs"));
  const weather = JSON.parse(
    readFileSync(join(ROOT, "packages/cli/examples/weather-script.json"), "utf8"),
  ) as unknown[];
  writeFileSync(join(dir, "replies.json"), JSON.stringify(weather.slice(0, 3)));
  writeFileSync(join(dir, "rest.json"), "[]");
  const mail = [{ content: "", toolCalls: [{ id: "call_1", name: "send_report", args: { to: "you@example.com" } }] }];
  writeFileSync(join(dir, "mail-script.json"), JSON.stringify(mail));
  return { dir, env: userEnv({ PATH: `${join(dir, "bin")}:${userEnv().PATH ?? ""}` }) };
}

describe("every command in the READMEs and docs/", () => {
  it("is run as written by a test, or says which test checks it and why not here", () => {
    const unchecked = docCommands().filter(({ command }) => howChecked(command) === undefined);
    expect(unchecked).toEqual([]);
    const written = new Set(docCommands().map(({ command }) => command));
    const stale = [...Object.keys(CHECKED_ELSEWHERE), ...CLI_README_RUNS].filter((command) => !written.has(command));
    expect(stale).toEqual([]);
  });

  it(
    "the CLI README's commands run as written, in order, in a project with agentloop installed",
    async () => {
      const { dir, env } = project();
      const server = await startAnswerServer("It is 30 °C in Pune.");
      Object.assign(env, { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.baseUrl });
      try {
        const paused = await sh(
          "agentloop run --tools ./tools.mjs --script mail-script.json --store runs --run-id mail Mail",
          dir,
          env,
        );
        expect(paused.code, paused.stderr).toBe(5);
        const mail = readFileSync(join(dir, "runs/mail.jsonl"));
        for (const command of CLI_README_RUNS) {
          if (command.startsWith("agentloop resume runs/mail.jsonl")) writeFileSync(join(dir, "runs/mail.jsonl"), mail);
          const ran = await sh(command, dir, env);
          expect(ran.stderr, command).toBe("");
          expect(ran.code, command).toBe(0);
        }
        expect(server.count()).toBe(5);
        expect(readFileSync(join(dir, "agent.mmd"), "utf8")).toMatch(/^stateDiagram-v2/);
        const dot = await sh("agentloop graph --format dot --run runs/pune.jsonl", dir, env);
        expect(dot.stdout).toMatch(/^digraph/);
        const mcp = await sh(`${MCP_COMMAND} --help`, dir, env);
        expect(mcp.code, mcp.stderr).toBe(0);
        expect(mcp.stdout).toMatch(/^Usage: agentloop run/);
        const demo = await sh("node packages/cli/dist/main.js demo", ROOT, env);
        expect(demo.code, demo.stderr).toBe(0);
        expect(demo.stdout).toContain("answer   It is 86 F in Pune.");
      } finally {
        server.close();
      }
    },
    hangGuard(180_000),
  );

  it("the Restate demo's command passes its '--' through pnpm and gets past its arguments", async () => {
    const command = "pnpm --filter @agentloop/restate demo -- --register http://127.0.0.1:9070";
    const ran = await sh(command, ROOT);
    expect(ran.stderr).not.toMatch(/ERR_PARSE_ARGS|\n\s+at /);
    expect(ran.stderr).toMatch(
      /agentloop-restate-demo: (cannot reach the Restate admin API at http:\/\/127\.0\.0\.1:9070|.*EADDRINUSE)/,
    );
  });

  it("the test and bench commands name scripts that exist, and CI runs the README's test command", () => {
    const scripts = (dir: string) =>
      (JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as { scripts: Record<string, string> })
        .scripts;
    expect(Object.keys(scripts("."))).toEqual(
      expect.arrayContaining(["demo", "setup:browser", "test", "bench", "bench:compare", "pack:all"]),
    );
    expect(Object.keys(scripts("packages/bench"))).toEqual(
      expect.arrayContaining([
        "profile:steps",
        "profile:replay",
        "bench:stores",
        "bench:studio",
        "bench:compaction",
        "bench:evals",
        "bench:blobs",
        "bench:processes",
        "bench:studio-postgres",
        "bench:memory",
        "bench:weight",
        "bench:run-cost",
      ]),
    );
    const ci = readFileSync(join(ROOT, ".ci/run"), "utf8");
    for (const step of ["pnpm install --frozen-lockfile", "pnpm run setup:browser", "pnpm test"])
      expect(ci).toContain(step);
  });

  it("the install commands name packages of this repository or dependencies it declares", () => {
    const names = new Set<string>();
    // Every package of the workspace: a new one's README names its own and its dependencies.
    const dirs = readdirSync(join(ROOT, "packages")).filter((dir) =>
      existsSync(join(ROOT, "packages", dir, "package.json")),
    );
    for (const dir of dirs) {
      const manifest = JSON.parse(readFileSync(join(ROOT, "packages", dir, "package.json"), "utf8")) as Record<
        string,
        unknown
      >;
      names.add(manifest.name as string);
      for (const field of ["dependencies", "peerDependencies", "devDependencies"]) {
        for (const name of Object.keys((manifest[field] as Record<string, string> | undefined) ?? {})) names.add(name);
      }
    }
    const named = docCommands()
      .filter(({ command }) => INSTALL.test(command))
      .flatMap(({ command }) => command.replace(INSTALL, "").split(/\s+/))
      // A tarball `pnpm pack:all` made (docs/before-publishing.md) is no name: pack-all.test.ts installs them.
      .filter((word) => !word.startsWith("-") && !word.endsWith(".tgz"));
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((name) => !names.has(name))).toEqual([]);
  });
});
