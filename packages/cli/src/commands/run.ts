import { parseArgs } from "node:util";
import { ModelError, runAgent, ToolRegistry } from "@agentloop/core";
import { parseCommandLine, wholeNumber } from "../args.js";
import { UsageError } from "../cli-error.js";
import { type Io, writeLines } from "../io.js";
import { palette, useColor } from "../output/colors.js";
import { formatOutcome, waitingLine } from "../output/outcome.js";
import { chooseModel } from "../setup/choose-model.js";
import { addMcpTools, connectMcpServers } from "../setup/mcp-servers.js";
import { logPathOf, newRunId } from "../setup/run-ids.js";
import { openStore } from "../setup/stores.js";
import { loadTools } from "../setup/tools-module.js";
import { exitCodeOf, runWithProgress } from "../trace/live-run.js";

/** Where `agentloop run` keeps logs when `--store` is not given. */
export const DEFAULT_STORE = ".agentloop/runs";

export const RUN_HELP = `Usage: agentloop run [--tools <module>] [--mcp "<command>"]... [--mcp-url <url>]...
                     [--model <provider:name> | --script <file.json>]
                     [--store <path>] [--run-id <id>] [--max-steps N] [--token-budget N]
                     [--json] [--no-color] "<task>"

Runs a task with your own tools (a module, MCP servers, or both), keeping the run's event log
so that it can be shown, replayed and resumed.

Options:
  --tools <module>         a JavaScript module whose default export (or 'register' export) is a
                           function (registry) => void that registers tools on a ToolRegistry
  --mcp "<command>"        an MCP server to start (stdio) whose tools the run may use; repeatable
  --mcp-url <url>          an MCP server to reach over Streamable HTTP whose tools the run may use; repeatable
  --model <provider:name>  openai:<name> (OPENAI_API_KEY, OPENAI_BASE_URL) or anthropic:<name> (ANTHROPIC_API_KEY)
  --script <file.json>     a scripted model instead: a JSON array of replies { "content", "toolCalls" }
  --store <path>           where the log is kept: a directory of <runId>.jsonl files, or a .db/.sqlite
                           file (default ${DEFAULT_STORE})
  --run-id <id>            the run's id in the store (default run-<date>-<time>-<random>)
  --max-steps N            model calls allowed (default 8)
  --token-budget N         tokens allowed, prompts and replies together (default 4000)
  --json                   print the AgentResult as JSON, and no progress
  --no-color               no ANSI colors (also NO_COLOR=1)
  -h, --help               this help
`;

/** `agentloop run`: a task with the user's tools, logged, with progress. */
export async function runCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandLine("run", () =>
    parseArgs({
      args,
      allowPositionals: true,
      options: {
        tools: { type: "string" },
        mcp: { type: "string", multiple: true, default: [] },
        "mcp-url": { type: "string", multiple: true, default: [] },
        model: { type: "string" },
        script: { type: "string" },
        store: { type: "string", default: DEFAULT_STORE },
        "run-id": { type: "string" },
        "max-steps": { type: "string" },
        "token-budget": { type: "string" },
        json: { type: "boolean", default: false },
        "no-color": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }),
  );
  if (values.help) {
    io.stdout.write(RUN_HELP);
    return 0;
  }
  const task = positionals.join(" ").trim();
  if (task === "") throw new UsageError(`'agentloop run' needs a task in quotes; see 'agentloop run --help'`);
  if (values.tools === undefined && values.mcp.length === 0 && values["mcp-url"].length === 0)
    throw new UsageError(
      "'agentloop run' needs --tools <module> or an MCP server (--mcp, --mcp-url); see 'agentloop run --help'",
    );
  const maxSteps = wholeNumber("--max-steps", values["max-steps"]);
  const tokenBudget = wholeNumber("--token-budget", values["token-budget"]);
  const model = await chooseModel(values, io, "run");
  const registry = values.tools === undefined ? new ToolRegistry() : await loadTools(values.tools);
  const store = await openStore(values.store);
  const runId = values["run-id"] ?? newRunId("run");
  const log = logPathOf(values.store, runId);
  const colors = palette(useColor(io.stdout, values["no-color"], io.env));
  const limits = {
    ...(maxSteps === undefined ? {} : { maxSteps }),
    ...(tokenBudget === undefined ? {} : { tokenBudget }),
  };
  const servers = await connectMcpServers(values.mcp, values["mcp-url"]);
  addMcpTools(registry, servers);
  try {
    const result = await runWithProgress(
      store,
      (tapped, signal) => runAgent(task, model, registry, { ...limits, store: tapped, runId, signal }),
      { io, colors, quiet: values.json },
    );
    if (values.json) writeLines(io.stdout, [JSON.stringify(result, null, 2)]);
    else {
      const lines = [
        ...formatOutcome(result, colors),
        ...waitingLine(result, log, colors),
        `${colors.bold("log")}      ${log}`,
      ];
      writeLines(io.stdout, ["", ...lines, seeIt(log, colors)]);
    }
    return exitCodeOf(result);
  } catch (error) {
    if (error instanceof ModelError)
      throw new ModelError(`${error.message}; the log is kept: ${log}`, {
        messages: error.messages,
        step: error.step,
        cause: error,
      });
    throw error;
  } finally {
    await servers.close();
  }
}

function seeIt(log: string, colors: ReturnType<typeof palette>): string {
  return colors.dim(`see it with: agentloop show ${log}   (--html report.html for a page)`);
}
