import type { Io } from "../io.js";

/** A word for a POSIX shell: as it is when it is safe, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,#-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A command line the user can paste: the program as they started it, then the quoted words. */
export function commandLine(io: Io, words: readonly string[]): string {
  return [io.program ?? "agentloop", ...words.map(shellQuote)].join(" ");
}

/** How a run got its model, to say it again in a hint: `--model openai:x` or `--script file.json`. */
export type ModelFlags = readonly string[];

/** The model flags the user gave (`--model <spec>` or `--script <file>`), for hints. */
export function modelFlagsOf(values: {
  readonly model?: string | undefined;
  readonly script?: string | undefined;
}): ModelFlags {
  if (values.model !== undefined) return ["--model", values.model];
  if (values.script !== undefined) return ["--script", values.script];
  return [];
}
