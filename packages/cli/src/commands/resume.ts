import { parseArgs } from "node:util";
import { type Decision, ModelError, resumeAgent } from "@agentloop/core";
import { onePositional, parseCommandLine } from "../args.js";
import { UsageError } from "../cli-error.js";
import { type Io, writeLines } from "../io.js";
import { palette, useColor } from "../output/colors.js";
import { formatOutcome, waitingLine } from "../output/outcome.js";
import { chooseModel } from "../setup/choose-model.js";
import { openLog, readLog } from "../setup/stores.js";
import { loadTools } from "../setup/tools-module.js";
import { exitCodeOf, runWithProgress } from "../trace/live-run.js";

export const RESUME_HELP = `Usage: agentloop resume <log> --tools <module> [--model <provider:name> | --script <file.json>]
                        [--approve <callId>]... [--deny <callId>]... [--reason <text>] [--json] [--no-color]

Continues a run from its log: logged model replies are not asked for again and logged tool
results are not run again; then the run goes on live, logging as usual. A finished run's
result comes back as it was. A run paused for approval goes on with your decisions.

Arguments:
  <log>                    a <runId>.jsonl file, or <file.db>#<runId> in a SQLite store

Options:
  --tools <module>         the tools module the run was started with (its specs must match the log's)
  --model <provider:name>  openai:<name> or anthropic:<name>, for the model calls still to come
  --script <file.json>     or a scripted model: the replies still to come, as a JSON array
  --approve <callId>       approve a call that waits for a decision (repeatable)
  --deny <callId>          deny it instead (repeatable); the model is told it was denied
  --reason <text>          the reason given to the model for the denials
  --json                   print the AgentResult as JSON, and no progress
  --no-color               no ANSI colors (also NO_COLOR=1)
  -h, --help               this help
`;

/** `agentloop resume`: continues a logged run. */
export async function resumeCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandLine("resume", () =>
    parseArgs({
      args,
      allowPositionals: true,
      options: {
        tools: { type: "string" },
        model: { type: "string" },
        script: { type: "string" },
        approve: { type: "string", multiple: true, default: [] },
        deny: { type: "string", multiple: true, default: [] },
        reason: { type: "string" },
        json: { type: "boolean", default: false },
        "no-color": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }),
  );
  if (values.help) {
    io.stdout.write(RESUME_HELP);
    return 0;
  }
  const log = await openLog(onePositional("resume", "a log (<runId>.jsonl)", positionals));
  if (values.tools === undefined)
    throw new UsageError("'agentloop resume' needs --tools <module>; see 'agentloop resume --help'");
  const decisions = decisionsOf(values.approve, values.deny, values.reason);
  const model = await chooseModel(values, io, "resume", "failWhenCalled");
  const registry = await loadTools(values.tools);
  const history = await readLog(log);
  const colors = palette(useColor(io.stdout, values["no-color"], io.env));
  const result = await runWithProgress(
    log.store,
    (store, signal) => resumeAgent(log.runId, model, registry, { store, decisions, signal }),
    { io, colors, quiet: values.json, history },
  ).catch((error: unknown) => {
    if (!(error instanceof ModelError)) throw error;
    throw new ModelError(`${error.message}; the log is kept: ${log.label}`, { ...error, cause: error });
  });
  if (values.json) writeLines(io.stdout, [JSON.stringify(result, null, 2)]);
  else
    writeLines(io.stdout, [
      "",
      ...formatOutcome(result, colors),
      ...waitingLine(result, log.label, colors),
      colors.dim(`log      ${log.label}`),
    ]);
  return exitCodeOf(result);
}

function decisionsOf(approve: readonly string[], deny: readonly string[], reason?: string): Record<string, Decision> {
  const decisions: Record<string, Decision> = {};
  for (const id of approve) decisions[id] = { approved: true };
  for (const id of deny) {
    if (decisions[id] !== undefined) throw new UsageError(`call '${id}' is both approved and denied: choose one`);
    decisions[id] = reason === undefined ? { approved: false } : { approved: false, reason };
  }
  return decisions;
}
