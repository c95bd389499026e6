import { JSON_VIEW_HELP, JSON_VIEW_OPTIONS, MODEL_OPTIONS, parseCommand } from "../args.js";
import { UsageError } from "../cli-error.js";
import { ModelError, runAgent } from "../core-api.js";
import { EXIT_CODE_HELP, exitCodeOf } from "../exit-codes.js";
import { type Io, writeLines, wroteHelp } from "../io.js";
import { palette, useColor } from "../output/colors.js";
import { commandLine, modelFlagsOf } from "../output/hints.js";
import { limitLines } from "../output/limit-hints.js";
import { formatOutcome, questionLines, waitingLines } from "../output/outcome.js";
import { chooseModel } from "../setup/choose-model.js";
import { MEMORY_FLAGS, MEMORY_HELP, type OpenedMemory, openMemory } from "../setup/memory-flags.js";
import { MONEY_FLAGS, MONEY_HELP, moneyOptionsOf } from "../setup/money-flags.js";
import { logPathOf, newRunId } from "../setup/run-ids.js";
import { CLI_RUN_DEFAULTS, RUN_OPTION_FLAGS, RUN_OPTION_HELP, runOptionsOf } from "../setup/run-options.js";
import { checkRunId, openStore } from "../setup/stores.js";
import { openToolSources, TOOL_SOURCE_HELP, TOOL_SOURCE_OPTIONS } from "../setup/tool-sources.js";
import { runWithProgress } from "../trace/live-run.js";
import { RunTracer } from "../trace/run-trace.js";

/** Where `agentloop run` keeps logs when `--store` is not given. */
export const DEFAULT_STORE = ".agentloop/runs";

export const RUN_HELP = `Usage: agentloop run [--tools <module>] [--mcp "<command>"]... [--mcp-url <url>]...
                     [--model <provider:name> | --script <file.json>]
                     [--store <path>] [--run-id <id>] [run options] [--json] [--no-color] "<task>"

Runs a task with your own tools (a module, MCP servers, or both), keeping the run's event log so that it can be shown,
replayed, resumed, forked and taken further with 'agentloop chat'. While it runs, a progress
line shows the machine's state, the tools running, the step and the tokens spent (on a
terminal, rewritten in place, with the model's text printed above it as it streams).

Options:
${TOOL_SOURCE_HELP}
  --model <provider:name>  openai:<name> (OPENAI_API_KEY, OPENAI_BASE_URL) or anthropic:<name> (ANTHROPIC_API_KEY);
                           google:<name> (GOOGLE_GENERATIVE_AI_API_KEY), mistral:<name> (MISTRAL_API_KEY) or
                           bedrock:<name> (AWS_REGION and AWS keys or AWS_BEARER_TOKEN_BEDROCK), through @agentloop/ai-sdk
  --script <file.json>     a scripted model instead: a JSON array of replies { "content", "toolCalls" }
  --store <path>           where the log is kept: a directory of <runId>.jsonl files, a .db/.sqlite
                           file, or a postgres://… database (default ${DEFAULT_STORE})
  --run-id <id>            the run's id in the store (default run-<date>-<time>-<random>)
${RUN_OPTION_HELP}
${MEMORY_HELP}
${MONEY_HELP}
${JSON_VIEW_HELP}

${EXIT_CODE_HELP}`;

/** `agentloop run`: a task with the user's tools, logged, with progress. */
export async function runCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand("run", args, {
    ...TOOL_SOURCE_OPTIONS,
    ...MODEL_OPTIONS,
    store: { type: "string", default: DEFAULT_STORE },
    "run-id": { type: "string" },
    ...RUN_OPTION_FLAGS,
    ...MEMORY_FLAGS,
    ...MONEY_FLAGS,
    ...JSON_VIEW_OPTIONS,
  });
  if (wroteHelp(io, values.help, RUN_HELP)) return 0;
  const task = positionals.join(" ").trim();
  if (task === "") throw new UsageError(`'agentloop run' needs a task in quotes; see 'agentloop run --help'`);
  const runId = values["run-id"] === undefined ? newRunId("run") : checkRunId(values["run-id"]);
  const model = await chooseModel(values, io, "run");
  const sources = await openToolSources("run", values);
  const { registry } = sources;
  const colors = palette(useColor(io.stdout, values["no-color"], io.env));
  const log = logPathOf(values.store, runId);
  let opened: OpenedMemory | undefined;
  try {
    opened = await openMemory(values, registry);
    const { memory } = opened;
    const options = {
      ...CLI_RUN_DEFAULTS,
      ...runOptionsOf(values, registry),
      ...moneyOptionsOf(values),
      ...(memory === undefined ? {} : { memory }),
    };
    const store = await openStore(values.store);
    const tracer = values.json ? null : new RunTracer(runId, { keep: false });
    const result = await runWithProgress(
      (hooks) => runAgent(task, model, registry, { ...options, ...hooks, store, runId }),
      { io, colors, quiet: values.json, tracer },
    );
    if (values.json) writeLines(io.stdout, [JSON.stringify(result, null, 2)]);
    else {
      const how = { log, runId, tools: [...sources.flags, ...opened.flags], model: modelFlagsOf(values) };
      writeLines(io.stdout, [
        "",
        ...formatOutcome(result, colors),
        ...waitingLines(io, colors, how, result.pendingApprovals ?? []),
        ...questionLines(io, colors, how, result.pendingQuestions ?? []),
        ...limitLines(io, colors, how, result, options),
        `${colors.bold("log")}      ${log}`,
        colors.dim(`see it    ${commandLine(io, ["show", log])}   (add --html report.html for a page)`),
      ]);
    }
    return exitCodeOf(result);
  } catch (error) {
    if (!ModelError.isInstance(error)) throw error;
    throw new ModelError(`${error.message}; the log is kept: ${log}`, {
      messages: error.messages,
      step: error.step,
      cause: error,
    });
  } finally {
    opened?.close();
    await sources.close();
  }
}
