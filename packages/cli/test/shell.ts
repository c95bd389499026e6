import { spawn } from "node:child_process";
import { delimiter } from "node:path";
import { type ChildOutput, outputOf } from "./child-output.js";

/**
 * The environment of a new user's shell: what the test runner's pnpm added (its `npm_*` variables,
 * its `node_modules/.bin` on PATH, vitest's own) and the developer's keys are left out.
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (
      !/^(npm_|pnpm_|VITEST|NODE_ENV$|NODE_OPTIONS$|INIT_CWD$|TEST$|OPENAI_|ANTHROPIC_|NO_COLOR$|FORCE_COLOR$)/i.test(
        key,
      )
    )
      env[key] = value;
  }
  env.PATH = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => !dir.includes("node_modules"))
    .join(delimiter);
  return { ...env, ...extra };
}

/** What one shell command line printed (stdout and stderr apart) and its exit code. */
export type ShellRun = ChildOutput;

/** Runs one command line with `sh -c`, as a user's shell would, in `cwd`. */
export function sh(line: string, cwd: string, env: NodeJS.ProcessEnv = userEnv()): Promise<ShellRun> {
  return outputOf(spawn("sh", ["-c", line], { cwd, env, stdio: ["ignore", "pipe", "pipe"] }));
}
