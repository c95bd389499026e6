import { EXIT_CODE_HELP } from "../exit-codes.js";
import type { Command } from "../io.js";

/** A command's code and its `--help` text, loaded when the command is used. */
export interface LoadedCommand {
  readonly run: Command;
  readonly help: string;
}

/** A command: one line for `agentloop --help`, and how to load the rest. */
export interface CommandEntry {
  readonly summary: string;
  readonly load: () => Promise<LoadedCommand>;
}

/** What `agentloop --help` says of each command, in the order it lists them. */
const SUMMARIES = {
  demo: "the weather agent with live progress, then its trace",
  run: "run a task with your tools module, keeping the event log",
  list: "the runs a store keeps, with how each ended",
  show: "a run's timeline (and --html: a report page with the statechart)",
  replay: "rebuild a run's result from its log, calling nothing",
  resume: "continue an interrupted or paused run from its log",
  chat: "take a finished run further with your next message",
  fork: "a new run from a prefix of a run's log, with other limits",
  studio: "a local, live web page for a store's runs: watch, approve, fork, compare",
  serve: "an agent on 127.0.0.1 for a chat page (--ui-stream), AG-UI clients (--ag-ui) or MCP clients (--mcp)",
  eval: "run an eval file's cases as logged runs, score them, compare with a baseline",
  repair: "drop a torn last event from a log after a crash",
  graph: "the statechart as Mermaid, DOT or JSON, optionally with a run's path",
} as const;

type CommandName = keyof typeof SUMMARIES;

// Each command's module loads only when it runs, so that a start reads the one command it needs, not
// every command's imports (the studio's pages, the servers, the evals).
const LOADERS: Readonly<Record<CommandName, () => Promise<LoadedCommand>>> = {
  demo: () => import("./demo.js").then((m) => ({ run: m.demoCommand, help: m.DEMO_HELP })),
  run: () => import("./run.js").then((m) => ({ run: m.runCommand, help: m.RUN_HELP })),
  list: () => import("./list.js").then((m) => ({ run: m.listCommand, help: m.LIST_HELP })),
  show: () => import("./show.js").then((m) => ({ run: m.showCommand, help: m.SHOW_HELP })),
  replay: () => import("./replay.js").then((m) => ({ run: m.replayCommand, help: m.REPLAY_HELP })),
  resume: () => import("./resume.js").then((m) => ({ run: m.resumeCommand, help: m.RESUME_HELP })),
  chat: () => import("./chat.js").then((m) => ({ run: m.chatCommand, help: m.CHAT_HELP })),
  fork: () => import("./fork.js").then((m) => ({ run: m.forkCommand, help: m.FORK_HELP })),
  studio: () => import("./studio.js").then((m) => ({ run: m.studioCommand, help: m.STUDIO_HELP })),
  serve: () => import("./serve.js").then((m) => ({ run: m.serveCommand, help: m.SERVE_HELP })),
  eval: () => import("./eval.js").then((m) => ({ run: m.evalCommand, help: m.EVAL_HELP })),
  repair: () => import("./repair.js").then((m) => ({ run: m.repairCommand, help: m.REPAIR_HELP })),
  graph: () => import("./graph.js").then((m) => ({ run: m.graphCommand, help: m.GRAPH_HELP })),
};

/** Every `agentloop` command, by name. */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = Object.fromEntries(
  (Object.keys(SUMMARIES) as CommandName[]).map((name) => [name, { summary: SUMMARIES[name], load: LOADERS[name] }]),
);

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
