import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { messageOf } from "../../cli-error.js";
import { ActionError } from "./studio-actions.js";

/** A case of an eval report as `agentloop eval --json` writes it (the fields the studio shows). */
export interface EvalCaseData {
  readonly id: string;
  readonly runId: string;
  readonly scores: Readonly<Record<string, number>>;
  readonly passed: boolean;
  readonly status?: string;
  readonly answer?: string | null;
  readonly error?: string;
}

/** An eval report as `agentloop eval --json` writes it (the fields the studio shows). */
export interface EvalReportData {
  readonly name: string;
  readonly passed: number;
  readonly failed: number;
  readonly tokens: number;
  readonly cases: readonly EvalCaseData[];
  /** The cases that regressed against the baseline, and those that improved (a report made with one). */
  readonly regressions?: readonly string[];
  readonly improvements?: readonly string[];
  /** Whether the evaluation was interrupted, and the cases it did not run. */
  readonly interrupted?: boolean;
  readonly notRun?: number;
}

/** A report and its file's name in the directory. */
export interface EvalFile {
  readonly file: string;
  readonly report: EvalReportData;
}

/** A report file's name: a plain `.json` name in the directory, never a path. */
const FILE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*\.json$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function isCase(value: unknown): value is EvalCaseData {
  return (
    isRecord(value) &&
    typeof value.id === "string" &&
    typeof value.runId === "string" &&
    typeof value.passed === "boolean" &&
    isRecord(value.scores) &&
    Object.values(value.scores).every((score) => typeof score === "number")
  );
}

/** The eval reports (`eval --json`) of a directory: read when asked, so a report written a moment ago is there. */
export class EvalReports {
  constructor(readonly directory: string) {}

  /** Every report of the directory, newest first; a file that is not a report is left out. */
  all(): EvalFile[] {
    const names = readdirSync(this.directory).filter((name) => FILE.test(name));
    const files = names.flatMap((file) => {
      try {
        return [{ file, report: this.#read(file), at: statSync(join(this.directory, file)).mtimeMs }];
      } catch {
        return [];
      }
    });
    return files
      .sort((a, b) => b.at - a.at || a.file.localeCompare(b.file))
      .map(({ file, report }) => ({ file, report }));
  }

  /** One report, by its file's name: 400 for a name that is not one, 404 for none, 409 for a file that is not a report. */
  get(file: string): EvalFile {
    if (!FILE.test(file)) throw new ActionError(400, `'${file.slice(0, 200)}' is not an eval report's file name`);
    try {
      return { file, report: this.#read(file) };
    } catch (error) {
      if (error instanceof ActionError) throw error;
      throw new ActionError(404, `no eval report '${file}': ${messageOf(error)}`);
    }
  }

  #read(file: string): EvalReportData {
    const value: unknown = JSON.parse(readFileSync(join(this.directory, file), "utf8"));
    if (
      !isRecord(value) ||
      typeof value.name !== "string" ||
      !Array.isArray(value.cases) ||
      !value.cases.every(isCase)
    ) {
      throw new ActionError(409, `'${file}' is not an eval report (agentloop eval --json writes one)`);
    }
    const cases = value.cases as EvalCaseData[];
    const count = (key: string, fallback: number) =>
      typeof value[key] === "number" ? (value[key] as number) : fallback;
    const ids = (key: string): readonly string[] | undefined => {
      const list = value[key];
      return Array.isArray(list) && list.every((id) => typeof id === "string") ? list : undefined;
    };
    const regressions = ids("regressions");
    const improvements = ids("improvements");
    return {
      name: value.name,
      cases,
      passed: count("passed", cases.filter((c) => c.passed).length),
      failed: count("failed", cases.filter((c) => !c.passed).length),
      tokens: count("tokens", 0),
      ...(regressions === undefined ? {} : { regressions }),
      ...(improvements === undefined ? {} : { improvements }),
      ...(value.interrupted === true ? { interrupted: true, notRun: count("notRun", 0) } : {}),
    };
  }
}
