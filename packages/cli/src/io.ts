/** Where a command writes and what it reads from its environment; tests and `main` provide it. */
export interface Io {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown };
  readonly env: NodeJS.ProcessEnv;
  /** How the user started agentloop (`agentloop`, or `node path/to/main.js`), for commands printed as hints. */
  readonly program?: string;
}

/** Writes lines to a stream, each ended by a newline. */
export function writeLines(stream: Io["stdout"], lines: readonly string[]): void {
  if (lines.length > 0) stream.write(`${lines.join("\n")}\n`);
}

/** Writes a command's help when `--help` was given, and says whether it did: the command then ends with 0. */
export function wroteHelp(io: Io, asked: boolean | undefined, help: string): boolean {
  if (asked === true) io.stdout.write(help);
  return asked === true;
}

/** A command: takes its arguments (after its name) and returns the exit code. */
export type Command = (args: string[], io: Io) => Promise<number>;
