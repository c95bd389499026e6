import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

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
