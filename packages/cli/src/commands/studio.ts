import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import type { Server } from "node:http";
import { parseFlags, wholeNumber } from "../args.js";
import { UsageError } from "../cli-error.js";
import type { RepairableStore } from "../core-api.js";
import { type Io, writeLines, wroteHelp } from "../io.js";
import { AUTHORIZE_FLAG, AUTHORIZE_HELP, type Authorize, loadAuthorize } from "../setup/authorize-module.js";
import { isPostgresUrl, isSqlitePath, openStore, postgresStoreOf, storeShown } from "../setup/stores.js";
import {
  openToolSources,
  TOOL_SOURCE_HELP,
  TOOL_SOURCE_OPTIONS,
  type ToolSourceValues,
} from "../setup/tool-sources.js";
import { EvalReports } from "../studio/server/eval-reports.js";
import { StudioActions } from "../studio/server/studio-actions.js";
import { createStudioServer } from "../studio/server/studio-server.js";
import { foldWhileIdle } from "../studio/watch/idle-fold.js";
import { JsonlWatcher } from "../studio/watch/jsonl-watcher.js";
import { PostgresWatcher } from "../studio/watch/postgres-watcher.js";
import type { StoreWatcher } from "../studio/watch/run-set.js";
import { SqliteWatcher } from "../studio/watch/sqlite-watcher.js";
import { DEFAULT_STORE } from "./run.js";

export const STUDIO_HELP = `Usage: agentloop studio [--store <path>] [--evals <dir>] [--port <n>] [--host <address>]
                        [--tools <module>] [--mcp …] [--mcp-url …] [--model <provider:name> | --script <file.json>]
                        [--authorize <module>]

Serves a local web page for the runs of a store: the list of runs (filterable), and each run's
timeline, statechart with its path, messages, tool calls and results, updated live as runs are
written by any process. From the page: approve or deny a waiting call, fork a run at any event,
compare two runs; with a model, start a run and continue a finished one. With --evals, the eval
reports written by 'agentloop eval --json' as cases × scorers, each case one click from its run,
and two reports side by side.

It prints a URL holding a secret made for this start; every request needs it (the page keeps it
in a cookie), and every request that changes something needs it in a header the page sends. A
request from another site's page, or for a host name the studio does not answer to, is refused.
Without --authorize it shows every run of the store; with it, a request sees and acts on the runs
of its principal's tenant only (the list, each run's page, its events, its parts, every action; a
run it starts is its own), and another tenant's run is answered as one the store does not hold.

Options:
  --store <path>           a directory of <runId>.jsonl files, a .db/.sqlite file, or a
                           postgres://… database (default ${DEFAULT_STORE})
  --evals <dir>            a directory of eval reports (agentloop eval --json) to show
  --port <n>               the port (default 4477; 0 picks a free one)
  --host <address>         the address to listen on (default 127.0.0.1: only this machine)
${TOOL_SOURCE_HELP}
                           with them the studio resumes runs after a decision, as 'agentloop resume'
  --model <provider:name>  the model for new runs, messages and resumed runs (openai:<name>, anthropic:<name>)
  --script <file.json>     or a scripted model
${AUTHORIZE_HELP}
  -h, --help               this help

Exit codes: 0 stopped (Ctrl-C), 2 a usage error.
`;

/** `agentloop studio`: a local, live web page for the runs of a store. */
export async function studioCommand(args: string[], io: Io): Promise<number> {
  const { values } = parseFlags("studio", args, {
    ...TOOL_SOURCE_OPTIONS,
    store: { type: "string", default: DEFAULT_STORE },
    evals: { type: "string" },
    port: { type: "string", default: "4477" },
    host: { type: "string", default: "127.0.0.1" },
    model: { type: "string" },
    script: { type: "string" },
    ...AUTHORIZE_FLAG,
    help: { type: "boolean", short: "h", default: false },
  });
  if (wroteHelp(io, values.help, STUDIO_HELP)) return 0;
  const port = wholeNumber("--port", values.port) ?? 0;
  if (port > 65535) throw new UsageError(`--port must be at most 65535; got '${values.port}'`);
  if (values.model !== undefined && values.script !== undefined) {
    throw new UsageError("give --model or --script, not both; see 'agentloop studio --help'");
  }
  if (!isPostgresUrl(values.store) && !existsSync(values.store)) {
    throw new UsageError(`store '${values.store}' does not exist`);
  }
  if (values.evals !== undefined && !existsSync(values.evals)) {
    throw new UsageError(`eval reports directory '${values.evals}' does not exist`);
  }
  const authorize = values.authorize === undefined ? undefined : await loadAuthorize(values.authorize);
  return serve(values, port, io, authorize);
}

type StudioValues = ToolSourceValues & {
  readonly store: string;
  readonly host: string;
  readonly evals?: string | undefined;
  readonly model?: string | undefined;
  readonly script?: string | undefined;
};

/** Watches the store and serves it until the process is asked to stop. */
async function serve(values: StudioValues, port: number, io: Io, authorize: Authorize | undefined): Promise<number> {
  const store = await openStore(values.store);
  const sources = hasTools(values) ? await openToolSources("studio", values) : null;
  let stopFolding = () => {};
  let watcher: StoreWatcher | null = null;
  try {
    watcher = watcherOf(values.store, store);
    await watcher.start();
    stopFolding = foldWhileIdle(watcher.runs);
    const actions = new StudioActions({ store, sources, model: values, io });
    const token = randomBytes(24).toString("base64url");
    const hosts = new Set<string>();
    const server = createStudioServer({
      watcher,
      actions,
      token,
      storeLabel: storeShown(values.store),
      hosts,
      evals: values.evals === undefined ? null : new EvalReports(values.evals),
      ...(authorize === undefined ? {} : { authorize }),
    });
    const address = await listen(server, port, values.host);
    for (const name of hostNames(values.host)) hosts.add(`${name}:${address}`);
    announce(io, values, address, token);
    await stopped(server);
    return 0;
  } finally {
    stopFolding();
    watcher?.close();
    await sources?.close();
  }
}

/** The watcher for the store: Postgres reads what is looked at, SQLite and JSONL hold every run. */
function watcherOf(path: string, store: RepairableStore): StoreWatcher {
  const postgres = postgresStoreOf(store);
  if (postgres !== null) return new PostgresWatcher(postgres);
  return isSqlitePath(path) ? new SqliteWatcher(path) : new JsonlWatcher(path);
}

/** Prints the URL with the start's secret, and a warning when the studio is reachable from other machines. */
function announce(io: Io, values: StudioValues, port: number, token: string): void {
  const shown = values.host.includes(":") ? `[${values.host}]` : values.host;
  writeLines(io.stdout, [
    `agentloop studio: http://${shown}:${port}/?token=${token}`,
    `watching ${storeShown(values.store)}; Ctrl-C stops`,
  ]);
  if (!isLoopback(values.host)) {
    writeLines(io.stderr, [
      `agentloop: studio listens on ${values.host}: anyone who can reach it and has the URL can act on runs`,
    ]);
  }
}

function hasTools(values: ToolSourceValues): boolean {
  return values.tools !== undefined || values.mcp.length > 0 || values["mcp-url"].length > 0;
}

function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "::1" || host === "localhost";
}

function hostNames(host: string): string[] {
  const shown = host.includes(":") ? `[${host}]` : host;
  return isLoopback(host) ? [shown, "127.0.0.1", "localhost", "[::1]"] : [shown];
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      const why = error.code === "EADDRINUSE" ? "it is in use (give another --port, or 0)" : error.message;
      reject(new UsageError(`cannot listen on ${host}:${port}: ${why}`));
    });
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : port);
    });
  });
}

/** Resolves when the process is asked to stop (Ctrl-C, SIGTERM), once the server is closed. */
function stopped(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      server.closeAllConnections();
      server.close(() => resolve());
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
