import type { Command } from "../io.js";
import { DEMO_HELP, demoCommand } from "./demo.js";
import { GRAPH_HELP, graphCommand } from "./graph.js";
import { REPLAY_HELP, replayCommand } from "./replay.js";
import { RESUME_HELP, resumeCommand } from "./resume.js";
import { RUN_HELP, runCommand } from "./run.js";
import { SHOW_HELP, showCommand } from "./show.js";

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
  show: {
    run: showCommand,
    help: SHOW_HELP,
    summary: "a run's timeline (and --html: a report page with the statechart)",
  },
  replay: { run: replayCommand, help: REPLAY_HELP, summary: "rebuild a run's result from its log, calling nothing" },
  resume: { run: resumeCommand, help: RESUME_HELP, summary: "continue an interrupted or paused run from its log" },
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
Exit codes: 0 done, 1 the run failed (e.g. the model could not be reached), 2 a usage error,
130 the run was cancelled with Ctrl-C (its log stays valid).
`;
