import { JSON_VIEW_HELP, JSON_VIEW_OPTIONS, MODEL_OPTIONS, parseCommand } from "../args.js";
import { UsageError } from "../cli-error.js";
import {
  type AgentResult,
  continueAgent,
  logFlags,
  ModelError,
  type ModelReply,
  type StartEvent,
  type StoredEvent,
} from "../core-api.js";
import { EXIT_CODE_HELP, exitCodeOf } from "../exit-codes.js";
import { type Io, writeLines, wroteHelp } from "../io.js";
import { type Palette, palette, useColor } from "../output/colors.js";
import { commandLine, modelFlagsOf } from "../output/hints.js";
import { type Limits, limitLines } from "../output/limit-hints.js";
import { formatOutcome, questionLines, type ResumeWith, resumeCommand, waitingLines } from "../output/outcome.js";
import { chooseModel } from "../setup/choose-model.js";
import { MEMORY_FLAGS, MEMORY_HELP, type OpenedMemory, openMemory } from "../setup/memory-flags.js";
import { type LogRef, openLog, readLog } from "../setup/stores.js";
import { openToolSources, requireToolSource, TOOL_SOURCE_OPTIONS, toolSourceFlags } from "../setup/tool-sources.js";
import { checkSameTools } from "../setup/tools-diff.js";
import { runWithProgress } from "../trace/live-run.js";
import { RunTracer } from "../trace/run-trace.js";

export const CHAT_HELP = `Usage: agentloop chat <log> --tools <module> [--mcp …] [--mcp-url …] [--model <provider:name> | --script <file.json>]
                      [--json] [--no-color] "<message>"

Takes a finished run further with your next message: the message is added to the same log
(a user.messaged event) and the model sees the whole conversation so far. Each message starts a
new turn, with the run's step limit and token budget counted afresh; steps and tokens in the
result count over the whole conversation. A run that is not finished (it waits for a decision,
or was interrupted) is resumed first: 'agentloop resume'.

Arguments:
  <log>                    a <runId>.jsonl file, <file.db>#<runId> in a SQLite store, or
                           postgres://…#<runId> in a Postgres store
  <message>                your next message, in quotes

Options:
  --tools, --mcp, --mcp-url
                           the tools the run was started with, as 'agentloop run' takes them
                           (their specs must match the log's)
  --model <provider:name>  openai:<name> or anthropic:<name>, for this turn's model calls
  --script <file.json>     or a scripted model: the script the conversation ran with so far (the replies
                           the log already holds are skipped), or just the replies still to come
${MEMORY_HELP}
                           (give them as the run was started with them: its tools and scope are the log's)
${JSON_VIEW_HELP}

${EXIT_CODE_HELP}`;

/** `agentloop chat`: a finished run's conversation goes on with the user's next message. */
export async function chatCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("chat", args, {
    ...TOOL_SOURCE_OPTIONS,
    ...MODEL_OPTIONS,
    ...MEMORY_FLAGS,
    ...JSON_VIEW_OPTIONS,
  });
  if (wroteHelp(io, values.help, CHAT_HELP)) return 0;
  const [reference, ...words] = positionals;
  const message = words.join(" ").trim();
  if (reference === undefined || message === "") {
    throw new UsageError(`'agentloop chat' needs a log and a message in quotes; see 'agentloop chat --help'`);
  }
  requireToolSource("chat", values);
  const log = await openLog(reference, { readonly: false });
  const history = await readLog(log);
  const memoryFlags = [
    ...(values.memory === undefined ? [] : ["--memory", values.memory]),
    ...(values["memory-scope"] === undefined ? [] : ["--memory-scope", values["memory-scope"]]),
  ];
  const tools = [...toolSourceFlags(values), ...memoryFlags];
  const how = { log: log.label, runId: log.runId, tools, model: modelFlagsOf(values) };
  const tracer = nextTurnTracer(log, history, resumeCommand(io, how, null, []));
  const started = history[0] as StartEvent;
  const sources = await openToolSources("chat", values);
  const { registry } = sources;
  let opened: OpenedMemory | undefined;
  try {
    opened = await openMemory(values, registry);
    const { memory } = opened;
    checkSameTools(log.runId, started.settings, registry, [...sources.flags, ...opened.flags].join(" "));
    const logged = history.flatMap((event) => (event.type === "model.replied" ? [event.reply as ModelReply] : []));
    const model = await chooseModel(values, io, "chat", "refuse", logged);
    const colors = palette(useColor(io.stdout, values["no-color"], io.env));
    const result = await runWithProgress(
      (hooks) =>
        continueAgent(log.runId, message, model, registry, {
          ...hooks,
          store: log.store,
          ...(memory === undefined ? {} : { memory }),
        }),
      { io, colors, quiet: values.json, tracer },
    ).catch((error: unknown) => {
      if (!ModelError.isInstance(error)) throw error;
      throw new ModelError(`${error.message}; the log is kept: ${log.label}`, { ...error, cause: error });
    });
    if (values.json) writeLines(io.stdout, [JSON.stringify(result, null, 2)]);
    else writeLines(io.stdout, turnLines(io, colors, how, tracer.fold.turn, result, started.settings));
    return exitCodeOf(result);
  } finally {
    opened?.close();
    await sources.close();
  }
}

/** What a turn came to, and the command that sends the next message (none while calls wait for decisions). */
function turnLines(
  io: Io,
  colors: Palette,
  how: ResumeWith & { runId: string; tools: readonly string[] },
  turn: number,
  result: AgentResult,
  limits: Limits,
): string[] {
  const next = commandLine(io, ["chat", how.log, ...how.tools, ...(how.model ?? []), "<your next message>"]);
  return [
    "",
    `${colors.bold("turn")}     ${turn}`,
    ...formatOutcome(result, colors),
    ...waitingLines(io, colors, how, result.pendingApprovals ?? []),
    ...questionLines(io, colors, how, result.pendingQuestions ?? []),
    ...limitLines(io, colors, how, result, limits),
    colors.dim(`log      ${how.log}`),
    ...(result.status === "awaiting_approval" || result.status === "awaiting_input"
      ? []
      : [colors.dim(`go on    ${next}`)]),
  ];
}

/**
 * One fold of the log, checked to be a finished run: the progress line goes on from there. A run
 * that has not finished is a `UsageError` that says how to resume it.
 */
function nextTurnTracer(log: LogRef, history: readonly StoredEvent[], resume: string): RunTracer {
  const tracer = new RunTracer(log.runId, { keep: false });
  for (const event of history) tracer.add(event);
  const { fold } = tracer;
  const { schemaVersion } = history[0] as StartEvent;
  if (!logFlags(schemaVersion).conversations) {
    throw new UsageError(`run '${log.runId}' has a log of schema 1, which cannot hold a conversation's next turn`);
  }
  const result = fold.result;
  if (result === null) {
    const why = tracer.trace().waiting.length > 0 ? "it waits for a decision" : "its log ends before its end";
    throw new UsageError(`run '${log.runId}' is not finished (${why}): resume it first: ${resume}`);
  }
  // The end a crash left unlogged and the user's message come as the run logs them.
  return tracer;
}
