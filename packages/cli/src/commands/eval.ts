import { readFileSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import type { EvalReport } from "@agentloop/evals";
import { parseCommand } from "../args.js";
import { fileError, messageOf, UsageError } from "../cli-error.js";
import { EXIT_CODES } from "../exit-codes.js";
import { type Io, writeLines, wroteHelp } from "../io.js";
import { palette, useColor } from "../output/colors.js";
import { loadEvalFile } from "../setup/eval-module.js";
import { importOptional } from "../setup/optional-module.js";
import { logPathOf } from "../setup/run-ids.js";
import { isPostgresUrl, openStore } from "../setup/stores.js";
import { evalReportFile } from "../studio/pages/eval-pages.js";
import { DEFAULT_STORE } from "./run.js";

export const EVAL_HELP = `Usage: agentloop eval <file> [--baseline report.json] [--json out.json] [--junit out.xml] [--html out.html]

Runs an evaluation: loads <file> (JavaScript, or TypeScript with tsx installed), which exports
'run' (case, { store, runId, signal }) => AgentResult, 'scorers', and 'cases' (or takes them
from logged runs with --from-store), runs every case as a logged run, shows each case as it
finishes, and prints a table of cases × scorers with each case's run id. Needs @agentloop/evals.

Options:
  --baseline <file>    a report written by --json before: list the cases that regressed,
                       improved or changed, and exit 1 when one regressed
  --json <file>        write the report as JSON (a later run's --baseline)
  --junit <file>       write JUnit XML, for CI systems
  --html <file>        write the report as a web page, each case's run one click away
  --store <path>       where the runs are logged: a directory, a .db/.sqlite file, or postgres://…
                       (default ${DEFAULT_STORE})
  --from-store <path>  the cases are the runs this store holds that ended done: the task, the
                       answer (or output) as expected, the log in metadata.events
  --since <date>       with --from-store, only runs started at or after this date (ISO 8601)
  --concurrency <n>    cases run at once (default: the file's, else 4)
  --no-color           no ANSI colors (also NO_COLOR=1)
  -h, --help           this help

Ctrl-C stops the evaluation: no case starts after it, the running ones are cancelled, and the
partial report (printed and written) says it was interrupted.

Exit codes: 0 every case passed (with --baseline: none regressed), 1 a case failed (with
--baseline: a case regressed) or there was no case to run, 2 a usage error (among them an eval
file that throws on load), 130 interrupted.
`;

const OPTIONS = {
  baseline: { type: "string" },
  json: { type: "string" },
  junit: { type: "string" },
  html: { type: "string" },
  store: { type: "string", default: DEFAULT_STORE },
  "from-store": { type: "string" },
  since: { type: "string" },
  concurrency: { type: "string" },
  "no-color": { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** `agentloop eval`: runs an eval file's cases, scores them, prints and writes the report. */
export async function evalCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("eval", args, OPTIONS);
  if (wroteHelp(io, values.help, EVAL_HELP)) return 0;
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0)
    throw new UsageError("eval takes one eval file; see 'agentloop eval --help'");
  const since = sinceOf(values.since, values["from-store"]);
  const concurrency = concurrencyOf(values.concurrency);
  const baseline = values.baseline === undefined ? undefined : readBaseline(values.baseline);
  const evals = await importOptional<typeof import("@agentloop/evals")>("@agentloop/evals", "agentloop eval", [
    "@agentloop/evals",
  ]);
  const definition = await loadEvalFile(file);
  const cases =
    values["from-store"] === undefined
      ? definition.cases
      : await evals.casesFromRuns(
          await openStore(values["from-store"], { readonly: true }),
          since === undefined ? {} : { since },
        );
  if (cases === undefined)
    throw new UsageError(`eval file '${file}' exports no cases: export cases, or give --from-store`);
  const store = await openStore(values.store);
  const colors = palette(useColor(io.stdout, values["no-color"], io.env));
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once("SIGINT", interrupt);
  let report: EvalReport;
  try {
    report = await evals.evaluate({
      name: definition.name ?? file,
      cases,
      run: definition.run,
      scorers: definition.scorers,
      concurrency: concurrency ?? definition.concurrency ?? 4,
      store,
      signal: controller.signal,
      ...(baseline !== undefined ? { baseline } : {}),
      onCase: (c, done, total) => {
        const mark = c.passed ? colors.green("✓") : colors.red("✗");
        writeLines(io.stderr, [`${mark} ${c.id} (${done}/${total})${c.error === undefined ? "" : `: ${c.error}`}`]);
      },
    });
  } finally {
    process.off("SIGINT", interrupt);
  }
  writeLines(io.stdout, evals.reportTable(report));
  write(values.json, "the JSON report", `${JSON.stringify(report, null, 2)}\n`);
  write(values.junit, "the JUnit report", evals.junitReport(report));
  if (values.html !== undefined) {
    const base = dirname(resolve(values.html));
    const link = (runId: string) =>
      isPostgresUrl(values.store)
        ? logPathOf(values.store, runId)
        : relative(base, resolve(logPathOf(values.store, runId)));
    write(values.html, "the HTML report", evalReportFile(report, link));
  }
  if (report.interrupted) return EXIT_CODES.cancelled;
  if (cases.length === 0) {
    writeLines(io.stderr, [`no case to run: ${noCasesWhy(file, values["from-store"], since)}; nothing was checked`]);
    return EXIT_CODES.failure;
  }
  const failing = baseline === undefined ? report.failed > 0 : report.regressions.length > 0;
  return failing ? EXIT_CODES.failure : 0;
}

/** Why an evaluation had no case, for the line that makes an empty one fail. */
function noCasesWhy(file: string, fromStore: string | undefined, since: Date | undefined): string {
  if (fromStore === undefined) return `the eval file '${file}' exports an empty list of cases`;
  const after = since === undefined ? "" : ` since ${since.toISOString()}`;
  return `--from-store found no run that ended done${after} in '${fromStore}'`;
}

function write(path: string | undefined, what: string, text: string): void {
  if (path === undefined) return;
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw fileError(error, `write ${what}`, path);
  }
}

function readBaseline(path: string): EvalReport {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new UsageError(`cannot read the baseline '${path}': ${messageOf(error)}`);
  }
  const cases = typeof value === "object" && value !== null && "cases" in value ? value.cases : undefined;
  if (!Array.isArray(cases))
    throw new UsageError(`the baseline '${path}' is not a report written by --json (no cases)`);
  return value as EvalReport;
}

function sinceOf(since: string | undefined, fromStore: string | undefined): Date | undefined {
  if (since === undefined) return undefined;
  if (fromStore === undefined) throw new UsageError("--since needs --from-store");
  const date = new Date(since);
  if (Number.isNaN(date.getTime()))
    throw new UsageError(`--since '${since}' is not a date (write 2026-01-31 or an ISO 8601 time)`);
  return date;
}

function concurrencyOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`--concurrency must be a whole number of at least 1, got '${text}'`);
  return value;
}
