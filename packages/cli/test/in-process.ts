import { runCli } from "../src/cli.js";
import { fixture } from "./cli.js";

/** What one command printed and returned. */
export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs one `agentloop` command line in this process (no child process: fast), with stdout not a
 * terminal, or a terminal with `tty`; `writes` collects every piece written to stdout, in order.
 */
export async function agentloop(
  args: readonly string[],
  env: Record<string, string> = {},
  { tty = false, writes = [] as string[] } = {},
): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    stdout: {
      write: (text: string) => {
        writes.push(text);
        stdout += text;
      },
      isTTY: tty,
    },
    stderr: { write: (text: string) => (stderr += text) },
    env,
    program: "agentloop",
  });
  return { code, stdout, stderr };
}

/**
 * `agentloop run --tools <the tools fixture> --store <store> --run-id <runId> --script <script>`,
 * then `rest` (flags, and the task last): how most tests start a run.
 */
export function runScripted(store: string, runId: string, script: string, ...rest: string[]): Promise<Ran> {
  const tools = fixture("tools.mjs");
  return agentloop(["run", "--tools", tools, "--store", store, "--run-id", runId, "--script", script, ...rest]);
}

/** The words of a command line printed by a hint, as a POSIX shell splits them (plain words and '...' quotes). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)) {
    words.push(match[1] !== undefined ? match[1].replaceAll("'\\''", "'") : (match[2] ?? ""));
  }
  return words;
}
