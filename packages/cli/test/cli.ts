import { type ChildProcessByStdio, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";
import { type ChildOutput, outputOf } from "./child-output.js";

/** The built CLI; the root `pnpm test` builds it first. */
export const CLI = fileURLToPath(new URL("../dist/main.js", import.meta.url));
/** Tools modules and scripts for the tests. */
export const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
export const fixture = (name: string) => join(FIXTURES, name);

if (!existsSync(CLI)) {
  throw new Error(
    `${CLI} is missing: build the CLI first (pnpm --filter @agentloop/cli... build, or pnpm test from the root)`,
  );
}

/** What one run of the CLI printed and returned. */
export type CliRun = ChildOutput;

// The tests see none of the developer's keys or color settings.
const CLEARED = [
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "NO_COLOR",
  "FORCE_COLOR",
];

/** Starts the CLI as a child process and returns it, for tests that interact with it while it runs. */
export function startCli(
  args: readonly string[],
  extraEnv: Record<string, string> = {},
): ChildProcessByStdio<null, Readable, Readable> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CLEARED) delete env[name];
  Object.assign(env, extraEnv);
  return spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
}

/** Runs `node dist/main.js ...args` as a child process (stdout is a pipe, never a terminal) and collects its output. */
export function cli(
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string; timeout?: number } = {},
): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CLEARED) delete env[name];
  Object.assign(env, options.env);
  const child = spawn(process.execPath, [CLI, ...args], {
    env,
    cwd: options.cwd,
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
  });
  return outputOf(child);
}

/** `agentloop run` of the weather script with the tools fixture, as a child process, keeping its log in `store`; then `rest`. */
export function cliWeatherRun(store: string, rest: readonly string[], options: { cwd?: string } = {}): Promise<CliRun> {
  const script = fixture("weather-script.json");
  return cli(["run", "--tools", fixture("tools.mjs"), "--script", script, "--store", store, ...rest], options);
}

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new empty directory for one test's files, removed after the test file. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-cli-"));
  made.push(dir);
  return dir;
}
