import { JSON_VIEW_HELP, JSON_VIEW_OPTIONS, MODEL_OPTIONS, onePositional, parseCommand } from "../args.js";
import { UsageError } from "../cli-error.js";
import {
  chainCallId,
  type Decision,
  type Decisions,
  ModelError,
  type ModelReply,
  resumeAgent,
  startedOf,
} from "../core-api.js";
import { EXIT_CODE_HELP, exitCodeOf } from "../exit-codes.js";
import { type Io, writeLines, wroteHelp } from "../io.js";
import { palette, useColor } from "../output/colors.js";
import { modelFlagsOf } from "../output/hints.js";
import { limitLines } from "../output/limit-hints.js";
import { formatOutcome, questionLines, waitingLines } from "../output/outcome.js";
import { chooseModel } from "../setup/choose-model.js";
import { answersOf, checkAnswers, checkDecisions } from "../setup/pending-calls.js";
import { logPathOf } from "../setup/run-ids.js";
import { openLog, readLog } from "../setup/stores.js";
import { openToolSources, requireToolSource, TOOL_SOURCE_OPTIONS } from "../setup/tool-sources.js";
import { checkSameTools } from "../setup/tools-diff.js";
import { runWithProgress } from "../trace/live-run.js";
import { RunTracer } from "../trace/run-trace.js";

export const RESUME_HELP = `Usage: agentloop resume <log> --tools <module> [--mcp …] [--mcp-url …] [--model <provider:name> | --script <file.json>]
                        [--approve <callId>]... [--deny <callId>]... [--reason <text>]
                        [--answer <callId>=<answer>]... [--json] [--no-color]

Continues a run from its log: logged model replies are not asked for again and logged tool
results are not run again; then the run goes on live, logging as usual. A finished run's
result comes back as it was. A run paused for approval goes on with your decisions; a run
paused for input goes on with your answers.

Arguments:
  <log>                    a <runId>.jsonl file, <file.db>#<runId> in a SQLite store, or
                           postgres://…#<runId> in a Postgres store

Options:
  --tools, --mcp, --mcp-url
                           the tools the run was started with, as 'agentloop run' takes them
                           (their specs must match the log's)
  --model <provider:name>  openai:<name> or anthropic:<name>, for the model calls still to come
  --script <file.json>     or a scripted model: the script the run was started with (the replies the
                           log already holds are skipped), or just the replies still to come
  --approve <callId>       approve a call that waits for a decision (repeatable)
  --deny <callId>          deny it instead (repeatable); the model is told it was denied
  --reason <text>          the reason given to the model for the denials
  --answer <callId>=<answer>
                           answer a question that waits (repeatable): the answer as JSON
                           ('{"day":"tue"}', '3', '"3"'), or as text when it is not JSON
${JSON_VIEW_HELP}

${EXIT_CODE_HELP}`;

/** `agentloop resume`: continues a logged run. */
export async function resumeCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("resume", args, {
    ...TOOL_SOURCE_OPTIONS,
    ...MODEL_OPTIONS,
    approve: { type: "string", multiple: true, default: [] },
    deny: { type: "string", multiple: true, default: [] },
    reason: { type: "string" },
    answer: { type: "string", multiple: true, default: [] },
    ...JSON_VIEW_OPTIONS,
  });
  if (wroteHelp(io, values.help, RESUME_HELP)) return 0;
  const reference = onePositional("resume", "a log (<runId>.jsonl)", positionals);
  const decisions = decisionsOf(values.approve, values.deny, values.reason);
  const answers = answersOf(values.answer);
  requireToolSource("resume", values);
  const log = await openLog(reference, { readonly: false });
  const history = await readLog(log);
  // One fold of the log: it checks the log, names the calls that wait, and seeds the progress line.
  const tracer = new RunTracer(log.runId, { keep: false });
  for (const event of history) tracer.add(event);
  const { fold } = tracer;
  const started = startedOf(history);
  if (started === undefined) throw new UsageError(`log '${log.label}' does not start with run.started`);
  if (started.parent !== undefined && fold.result === null) {
    // Resuming a child alone would leave its parent waiting: the tree is resumed from its root, by chained ids.
    const { runId, callId } = started.parent;
    const ids = fold.position.waiting.map((call) => ` --approve ${chainCallId(callId, call.id)}`).join("");
    throw new UsageError(
      `run '${log.runId}' is run by call '${callId}' of run '${runId}': resume ${logPathOf(log.storePath, runId)}${ids}, which resumes the whole tree`,
    );
  }
  if (fold.result === null) {
    checkDecisions(fold.position.waiting, decisions, fold.position.running);
    checkAnswers(fold.position.questions, answers, fold.position.running);
  } else if (Object.keys(decisions).length > 0)
    throw new UsageError(`run '${log.runId}' has finished: no call waits for a decision`);
  else if (Object.keys(answers).length > 0)
    throw new UsageError(`run '${log.runId}' has finished: no question waits for an answer`);
  const sources = await openToolSources("resume", values);
  const { registry } = sources;
  try {
    checkSameTools(log.runId, started.settings, registry, sources.flags.join(" "));
    const logged = history.flatMap((event) => (event.type === "model.replied" ? [event.reply as ModelReply] : []));
    const model = await chooseModel(values, io, "resume", "failWhenCalled", logged);
    const colors = palette(useColor(io.stdout, values["no-color"], io.env));
    const result = await runWithProgress(
      (hooks) => resumeAgent(log.runId, model, registry, { ...hooks, store: log.store, decisions, answers }),
      { io, colors, quiet: values.json, tracer },
    ).catch((error: unknown) => {
      if (!ModelError.isInstance(error)) throw error;
      throw new ModelError(`${error.message}; the log is kept: ${log.label}`, { ...error, cause: error });
    });
    if (values.json) writeLines(io.stdout, [JSON.stringify(result, null, 2)]);
    else {
      const how = { log: log.label, runId: log.runId, tools: sources.flags, model: modelFlagsOf(values) };
      writeLines(io.stdout, [
        "",
        ...formatOutcome(result, colors),
        ...waitingLines(io, colors, how, result.pendingApprovals ?? []),
        ...questionLines(io, colors, how, result.pendingQuestions ?? []),
        ...limitLines(io, colors, how, result, started.settings),
        colors.dim(`log      ${log.label}`),
      ]);
    }
    return exitCodeOf(result);
  } finally {
    await sources.close();
  }
}

/** Decisions by call id, as own properties only: an id like `__proto__` or `constructor` is an id like any other. */
function decisionsOf(approve: readonly string[], deny: readonly string[], reason?: string): Decisions {
  const decisions = new Map<string, Decision>();
  for (const id of approve) decisions.set(id, { approved: true });
  for (const id of deny) {
    if (decisions.get(id)?.approved === true)
      throw new UsageError(`call '${id}' is both approved and denied: choose one`);
    decisions.set(id, reason === undefined ? { approved: false } : { approved: false, reason });
  }
  if (reason !== undefined && deny.length === 0) throw new UsageError("--reason goes with --deny <callId>");
  return Object.fromEntries(decisions);
}
