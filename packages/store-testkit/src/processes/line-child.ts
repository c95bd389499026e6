import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { EventStore } from "@agentloop/core";

/** A child process that takes one command a line on stdin and answers each with one line on stdout. */
export interface LineChild {
  readonly pid: number;
  /** Writes `command` and resolves with the child's next answer line. */
  ask(command: string): Promise<string>;
  /** Resolves once the child is gone, with the signal that ended it. */
  readonly exited: Promise<NodeJS.Signals | null>;
  /** SIGKILLs it; resolves once it is gone. */
  kill(): Promise<NodeJS.Signals | null>;
}

/** Starts `argv` (a command and its arguments) with `env`; its stderr goes to the test's. */
export function startLineChild(argv: readonly string[], env: NodeJS.ProcessEnv): LineChild {
  const [command = process.execPath, ...args] = argv;
  const child: ChildProcess = spawn(command, args, { env, stdio: ["pipe", "pipe", "inherit"] });
  const answers: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => answers.shift()?.(line));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once("exit", (_code, signal) => resolve(signal)),
  );
  return {
    pid: child.pid ?? -1,
    ask: (line) =>
      new Promise((resolve) => {
        answers.push(resolve);
        child.stdin?.write(`${line}\n`);
      }),
    exited,
    kill: () => {
      child.kill("SIGKILL");
      return exited;
    },
  };
}

/** The store under test in a suite of real processes, as its children and the parent open it. */
export interface ChildStoreOptions {
  /** What the child opens the store by (its fixture's `<NAME>_STORE`), and any more environment it needs. */
  readonly childEnv: Readonly<Record<string, string>>;
  /** Where the store lives inside a temp directory: the JSONL directory, the SQLite file, or a Postgres schema's location. */
  storePath(directory: string): string;
  openStore(path: string): EventStore & { close?(): void | Promise<void> };
}
