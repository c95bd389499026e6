import { readLines } from "./jsonl-lines.js";

/** What a scan of a log file found: the lines as values up to the first broken one, if any. */
export interface Scan {
  readonly values: unknown[];
  /** The file's length in bytes as read. */
  readonly bytes: number;
  /** Where the last line starts, in bytes. */
  readonly lastOffset: number;
  readonly broken: {
    readonly index: number;
    readonly offset: number;
    readonly problem: string;
    readonly last: boolean;
  } | null;
}

/** Reads the JSONL log at `path` line by line, up to its first line that is not whole, UTF-8 and JSON. */
export function scanLog(path: string): Scan {
  const values: unknown[] = [];
  let bytes = 0;
  let lastOffset = 0;
  const lines = readLines(path);
  for (const line of lines) {
    const problem = lineProblem(line, values);
    if (problem !== null) {
      const last = lines.next().done === true;
      lines.return(undefined);
      return { values, bytes, lastOffset, broken: { index: line.index, offset: line.offset, problem, last } };
    }
    lastOffset = line.offset;
    bytes = line.offset + line.bytes + 1;
  }
  return { values, bytes, lastOffset, broken: null };
}

/** Parses a line into `values`; returns what is wrong with it instead, if anything. */
function lineProblem(
  line: { readonly text: string | { problem: string }; readonly complete: boolean },
  values: unknown[],
): string | null {
  if (!line.complete) return "is torn: the file ends in the middle of it";
  if (typeof line.text !== "string") return line.text.problem;
  try {
    values.push(JSON.parse(line.text) as unknown);
    return null;
  } catch (error) {
    return `is not valid JSON (${error instanceof Error ? error.message : String(error)})`;
  }
}
