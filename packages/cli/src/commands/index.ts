import { EXIT_CODE_HELP } from "../exit-codes.js";
import type { LoadedCommand } from "../io.js";

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
// every command's imports (the studio's pages, the servers, the evals). Each exports its `command`.
const MODULES: Readonly<Record<CommandName, () => Promise<{ readonly command: LoadedCommand }>>> = {
  demo: () => import("./demo.js"),
  run: () => import("./run.js"),
  list: () => import("./list.js"),
  show: () => import("./show.js"),
  replay: () => import("./replay.js"),
  resume: () => import("./resume.js"),
  chat: () => import("./chat.js"),
  fork: () => import("./fork.js"),
  studio: () => import("./studio.js"),
  serve: () => import("./serve.js"),
  eval: () => import("./eval.js"),
  repair: () => import("./repair.js"),
  graph: () => import("./graph.js"),
};

/** Every `agentloop` command, by name. */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = Object.fromEntries(
  (Object.keys(SUMMARIES) as CommandName[]).map((name) => [
    name,
    { summary: SUMMARIES[name], load: async () => (await MODULES[name]()).command },
  ]),
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
