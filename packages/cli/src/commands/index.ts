import { EXIT_CODE_HELP } from "../exit-codes.js";
import type { Command } from "../io.js";
import { CHAT_HELP, chatCommand } from "./chat.js";
import { DEMO_HELP, demoCommand } from "./demo.js";
import { EVAL_HELP, evalCommand } from "./eval.js";
import { FORK_HELP, forkCommand } from "./fork.js";
import { GRAPH_HELP, graphCommand } from "./graph.js";
import { LIST_HELP, listCommand } from "./list.js";
import { REPAIR_HELP, repairCommand } from "./repair.js";
import { REPLAY_HELP, replayCommand } from "./replay.js";
import { RESUME_HELP, resumeCommand } from "./resume.js";
import { RUN_HELP, runCommand } from "./run.js";
import { SERVE_HELP, serveCommand } from "./serve.js";
import { SHOW_HELP, showCommand } from "./show.js";
import { STUDIO_HELP, studioCommand } from "./studio.js";

/** A command and its `--help` text. */
export interface CommandEntry {
  readonly run: Command;
  readonly help: string;
  readonly summary: string;
}

/** Every `agentloop` command, by name. */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  demo: { run: demoCommand, help: DEMO_HELP, summary: "the weather agent with live progress, then its trace" },
  run: { run: runCommand, help: RUN_HELP, summary: "run a task with your tools module, keeping the event log" },
  list: { run: listCommand, help: LIST_HELP, summary: "the runs a store keeps, with how each ended" },
  show: {
    run: showCommand,
    help: SHOW_HELP,
    summary: "a run's timeline (and --html: a report page with the statechart)",
  },
  replay: { run: replayCommand, help: REPLAY_HELP, summary: "rebuild a run's result from its log, calling nothing" },
  resume: { run: resumeCommand, help: RESUME_HELP, summary: "continue an interrupted or paused run from its log" },
  chat: { run: chatCommand, help: CHAT_HELP, summary: "take a finished run further with your next message" },
  fork: { run: forkCommand, help: FORK_HELP, summary: "a new run from a prefix of a run's log, with other limits" },
  studio: {
    run: studioCommand,
    help: STUDIO_HELP,
    summary: "a local, live web page for a store's runs: watch, approve, fork, compare",
  },
  serve: {
    run: serveCommand,
    help: SERVE_HELP,
    summary: "an agent on 127.0.0.1 for a chat page (--ui-stream), AG-UI clients (--ag-ui) or MCP clients (--mcp)",
  },
  eval: {
    run: evalCommand,
    help: EVAL_HELP,
    summary: "run an eval file's cases as logged runs, score them, compare with a baseline",
  },
  repair: { run: repairCommand, help: REPAIR_HELP, summary: "drop a torn last event from a log after a crash" },
  graph: {
    run: graphCommand,
    help: GRAPH_HELP,
    summary: "the statechart as Mermaid, DOT or JSON, optionally with a run's path",
  },
};

const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));

/** `agentloop --help`. */
export const MAIN_HELP = `Usage: agentloop <command> [options]

An LLM agent loop as an event-sourced XState machine: run it, watch it, replay it, resume it, draw it.

Commands:
${Object.entries(COMMANDS)
  .map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`)
  .join("\n")}

Run 'agentloop <command> --help' (or 'agentloop help <command>') for a command's options.

${EXIT_CODE_HELP}`;
