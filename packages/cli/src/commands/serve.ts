import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { parseFlags, wholeNumber } from "../args.js";
import { UsageError } from "../cli-error.js";
import {
  type CliModel,
  checkTenantBudget,
  type EventStore,
  type Principal,
  type RunOptions,
  type SpendLimits,
  type ToolRegistry,
} from "../core-api.js";
import { type Io, type LoadedCommand, writeLines, wroteHelp } from "../io.js";
import { chatPageFile } from "../serving/chat-page-files.js";
import { AUTHORIZE_FLAG, AUTHORIZE_HELP, type Authorize, loadAuthorize } from "../setup/authorize-module.js";
import { chooseModel } from "../setup/choose-model.js";
import { MONEY_FLAGS, MONEY_HELP, moneyOptionsOf } from "../setup/money-flags.js";
import { importOptional } from "../setup/optional-module.js";
import {
  type AgentRunOptions,
  agentRunOptionsOf,
  CLI_RUN_DEFAULTS,
  RUN_OPTION_FLAGS,
  RUN_OPTION_HELP,
} from "../setup/run-options.js";
import { loadConversationScript } from "../setup/script-file.js";
import { ServedToolRegistry } from "../setup/served-tools.js";
import { openStore, storeShown } from "../setup/stores.js";
import { TENANT_BUDGET_FLAG, TENANT_BUDGET_HELP, tenantBudgetFile } from "../setup/tenant-budget-file.js";
import { openToolSources, type ToolSourceValues } from "../setup/tool-sources.js";
import { DEFAULT_STORE } from "./run.js";

export const SERVE_HELP = `Usage: agentloop serve (--ui-stream | --ag-ui | --mcp | --a2a) [--tools <module>] [--mcp-url <url>]...
                       [--model <provider:name> | --script <file.json>] [--store <path>] [--port <n>]
                       [run options]

Serves an agent with your tools on 127.0.0.1, each conversation kept in the store under the
client's chat or thread id (a run waiting for approval pauses there until the client decides):
  --ui-stream              a chat page at /, and the AI SDK UI message stream that useChat reads at
                           /api/chat (needs @agentloop/ai-sdk)
  --ag-ui                  AG-UI: RunAgentInput in, events out over SSE; an approval is an interrupt (needs @agentloop/ag-ui)
  --mcp                    the agent as one MCP tool over Streamable HTTP at /mcp (with --stdio:
                           over this process's stdin and stdout instead); an approval is input_required
  --a2a                    A2A (v1.0, JSON-RPC) at /, its agent card at /.well-known/agent-card.json; a task
                           is a run, an approval or a question is input-required (needs @agentloop/a2a)

Options:
  --tools <module>         a module whose default export registers tools on a ToolRegistry
  --mcp-url <url>          an MCP server to reach over Streamable HTTP whose tools the agent may use; repeatable
  --model <provider:name>  openai:<name> (OPENAI_API_KEY) or anthropic:<name> (ANTHROPIC_API_KEY)
  --script <file.json>     or a scripted model: each conversation replays it from its start
  --store <path>           a directory of <runId>.jsonl files, a .db/.sqlite file, or a
                           postgres://… database (default ${DEFAULT_STORE})
  --port <n>               the port (default 4478; 0 picks a free one)
  --name <name>            with --mcp: the tool's name; with --a2a: the card's (default agent)
  --description <text>     with --mcp: the tool's description; with --a2a: the card's
  --card-url <url>         with --a2a: the URL the card tells clients to call, whose host the server
                           then answers to (default: the address it listens on, http://127.0.0.1:<port>/)
  --stdio                  with --mcp: serve over stdin and stdout
  --allow-origin <origin>  a site whose pages may call the agent (https://app.example.com); repeatable.
                           Without it, a request from another site's page is refused 403
  --expose-errors          show a client the error a run failed with (for local development); without
                           it, a client sees "the agent failed (<id>)" and the detail stays in the log
${AUTHORIZE_HELP}
${TENANT_BUDGET_HELP}
  -h, --help               this help

Run options, as 'agentloop run' takes them: every turn of every conversation runs with them
(a served call of an --approve-tool tool runs without a pause; one of a --deny-tool tool is
answered with the denial):
${RUN_OPTION_HELP}
${MONEY_HELP}

Exit codes: 0 stopped (Ctrl-C), 2 a usage error.
`;

/** What every served turn runs with: the run options of the command line, with `run`'s defaults. */
type ServedRunOptions = AgentRunOptions & Pick<RunOptions, "pricing" | "costBudget">;

/** What a protocol's handler is given. */
interface Served {
  readonly model: CliModel;
  readonly registry: ToolRegistry;
  readonly store: EventStore;
  readonly options: ServedRunOptions;
  readonly allowedOrigins?: readonly string[];
  readonly allowedHosts?: readonly string[];
  readonly exposeErrors?: boolean;
  readonly authorize?: Authorize;
  readonly tenantBudget?: (principal: Principal) => SpendLimits | undefined;
}

/** The shape `@agentloop/ai-sdk` is imported as, for `--ui-stream`. */
interface AiSdkModule {
  chatHandler(options: Served): (request: Request) => Promise<Response>;
}

/** `agentloop serve`: an agent behind a page, an AG-UI client or another agent, on 127.0.0.1. */
export async function serveCommand(args: string[], io: Io): Promise<number> {
  const { values } = parseFlags("serve", args, {
    tools: { type: "string" },
    "mcp-url": { type: "string", multiple: true, default: [] },
    model: { type: "string" },
    script: { type: "string" },
    store: { type: "string", default: DEFAULT_STORE },
    port: { type: "string", default: "4478" },
    "ui-stream": { type: "boolean", default: false },
    "ag-ui": { type: "boolean", default: false },
    mcp: { type: "boolean", default: false },
    a2a: { type: "boolean", default: false },
    "card-url": { type: "string" },
    stdio: { type: "boolean", default: false },
    "allow-origin": { type: "string", multiple: true, default: [] },
    "expose-errors": { type: "boolean", default: false },
    name: { type: "string", default: "agent" },
    description: { type: "string", default: "An agent: give it a task; it answers when done." },
    help: { type: "boolean", short: "h", default: false },
    ...AUTHORIZE_FLAG,
    ...TENANT_BUDGET_FLAG,
    ...RUN_OPTION_FLAGS,
    ...MONEY_FLAGS,
  });
  if (wroteHelp(io, values.help, SERVE_HELP)) return 0;
  const protocols = (["ui-stream", "ag-ui", "mcp", "a2a"] as const).filter((flag) => values[flag]);
  if (protocols.length !== 1) {
    throw new UsageError("give one of --ui-stream, --ag-ui, --mcp or --a2a; see 'agentloop serve --help'");
  }
  const protocol = protocols[0] as Protocol;
  if (values.stdio && protocol !== "mcp") throw new UsageError("--stdio goes with --mcp only");
  if (values["card-url"] !== undefined && protocol !== "a2a") throw new UsageError("--card-url goes with --a2a only");
  if (values["card-url"] !== undefined && !/^https?:\/\/\S+$/.test(values["card-url"])) {
    throw new UsageError(`--card-url must be an http(s) URL; got '${values["card-url"]}'`);
  }
  const port = wholeNumber("--port", values.port) ?? 0;
  if (port > 65535) throw new UsageError(`--port must be at most 65535; got '${values.port}'`);
  const runOptions = { ...CLI_RUN_DEFAULTS, ...agentRunOptionsOf(values), ...moneyOptionsOf(values) };
  const access = await accessOf(values, values.stdio);
  // A script is replayed per conversation: one shared script would give the second chat the first one's later replies.
  const model =
    values.script !== undefined && values.model === undefined
      ? loadConversationScript(values.script)
      : await chooseModel(values, io, "serve");
  try {
    checkTenantBudget({ model, options: runOptions, tenantBudget: access.tenantBudget });
  } catch (error) {
    throw new UsageError(`--tenant-budget: ${(error as Error).message}; add it to ${values.pricing}`);
  }
  const toolValues: ToolSourceValues = { tools: values.tools, mcp: [], "mcp-url": values["mcp-url"] };
  const policy = new ServedToolRegistry(values["approve-tool"], values["deny-tool"], values.reason);
  const sources = await openToolSources("serve", toolValues, policy);
  try {
    policy.check();
    const store = await openStore(values.store);
    if (access.tenantBudget !== undefined && store.spending === undefined) {
      throw new UsageError(
        `--tenant-budget needs a store that keeps owners' spending; ${storeShown(values.store)} keeps none`,
      );
    }
    const options: Served = {
      model,
      registry: sources.registry,
      store,
      options: runOptions,
      ...(values["allow-origin"].length > 0 ? { allowedOrigins: values["allow-origin"] } : {}),
      // Clients call the URL the card names: the server answers to its host too (a proxy that keeps the Host).
      ...(values["card-url"] === undefined ? {} : { allowedHosts: [new URL(values["card-url"]).host] }),
      ...(values["expose-errors"] ? { exposeErrors: true } : {}),
      ...access,
    };
    if (protocol === "mcp" && values.stdio) {
      const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
      const { serveAgent } = await import("@agentloop/mcp");
      serveStdio(() => serveAgent({ ...options, name: values.name, description: values.description }));
      await stoppedSignal();
      return 0;
    }
    const handlerAt = await handlerFor(protocol, options, values.name, values.description);
    // The handler is made once the port is known: an A2A card names the URL it is reached at.
    let handler: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 });
    const server = createServer((request, response) => void bridge(handler, request, response));
    const bound = await listen(server, port);
    handler = handlerAt(values["card-url"] ?? `http://127.0.0.1:${bound}/`);
    const path = protocol === "mcp" ? "/mcp" : "/";
    writeLines(io.stdout, [
      `agentloop serve (${protocol}): http://127.0.0.1:${bound}${path}`,
      ...(protocol === "ui-stream" ? [`a chat page at /; useChat's API at http://127.0.0.1:${bound}/api/chat`] : []),
      `store ${storeShown(values.store)}; Ctrl-C stops`,
    ]);
    await stoppedSignal();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return 0;
  } finally {
    await sources.close();
  }
}

/**
 * Who may use the served agent and what each tenant may spend: `--authorize`'s function, and
 * `--tenant-budget`'s ceilings. A ceiling is per tenant, so it needs a principal (`--authorize`),
 * and it holds each call's most possible cost, so it needs prices (`--pricing`); over stdio there is
 * no request to authorize.
 */
async function accessOf(
  values: {
    readonly authorize?: string | undefined;
    readonly "tenant-budget"?: string | undefined;
    readonly pricing?: string | undefined;
  },
  stdio: boolean,
): Promise<Pick<Served, "authorize" | "tenantBudget">> {
  const budget = values["tenant-budget"];
  if (values.authorize !== undefined && stdio) {
    throw new UsageError("--authorize goes with HTTP: over --stdio there is no request to authorize");
  }
  if (budget !== undefined && values.authorize === undefined) {
    throw new UsageError(
      "--tenant-budget needs --authorize <module>: without a principal a request has no tenant to hold to a ceiling",
    );
  }
  if (budget !== undefined && values.pricing === undefined) {
    throw new UsageError(
      "--tenant-budget needs --pricing <file.json>: a ceiling holds each model call's most possible cost, which needs its price",
    );
  }
  const tenantBudget = budget === undefined ? undefined : tenantBudgetFile(budget);
  const authorize = values.authorize === undefined ? undefined : await loadAuthorize(values.authorize);
  return {
    ...(authorize === undefined ? {} : { authorize }),
    ...(tenantBudget === undefined ? {} : { tenantBudget }),
  };
}

type Protocol = "ui-stream" | "ag-ui" | "mcp" | "a2a";
type Handler = (request: Request) => Promise<Response>;

/** Loads the protocol's package and gives the maker of its handler, given the URL the server is reached at. */
async function handlerFor(
  protocol: Protocol,
  options: Served,
  name: string,
  description: string,
): Promise<(url: string) => Handler> {
  // Each protocol's package is loaded only when it is served: the other commands start without them.
  if (protocol === "ag-ui") {
    const agUi = await importOptional<typeof import("@agentloop/ag-ui")>(
      "@agentloop/ag-ui",
      "agentloop serve --ag-ui",
      ["@agentloop/ag-ui"],
    );
    return () => agUi.agUiHandler(options);
  }
  if (protocol === "a2a") {
    const a2a = await importOptional<typeof import("@agentloop/a2a")>("@agentloop/a2a", "agentloop serve --a2a", [
      "@agentloop/a2a",
    ]);
    return (url) => a2a.a2aHandler({ ...options, card: { name, description, url } });
  }
  if (protocol === "mcp") {
    const { serveAgentHttp } = await import("@agentloop/mcp");
    // 2025-era clients get a session, so a task's tasks/result can ask them for an approval.
    const mcp = serveAgentHttp({ ...options, name, description });
    return () => (request) => mcp.fetch(request);
  }
  const aiSdk = await importOptional<AiSdkModule>("@agentloop/ai-sdk", "agentloop serve --ui-stream", [
    "@agentloop/ai-sdk",
  ]);
  const chat = aiSdk.chatHandler(options);
  // The page at / asks the API at /api/chat, on the same origin; every other request is the API's.
  return () => async (request) => (await chatPageFile(request)) ?? chat(request);
}

/** The most bytes a request body may hold: a chat message with its files, a JSON-RPC request. */
const MAX_BODY = 32 * 1024 * 1024;

/**
 * Hands a `node:http` request to a web-standard handler and streams its response back; a client gone
 * mid-stream stops the copy only. The body is handed on as a stream, read only by a handler that
 * takes the request (one the front door refuses is answered before it is read), and refused 413
 * past `MAX_BODY`. An error the handler throws is answered 500 without its words (they go to
 * stderr): they may name files, hosts or credentials.
 */
async function bridge(
  handler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  let tooLarge = false;
  try {
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > MAX_BODY) {
      tooLarge = true;
      throw new RangeError("the request body is too large");
    }
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(key, value);
    const method = req.method ?? "GET";
    const hasBody = method !== "GET" && method !== "HEAD";
    let size = 0;
    const body = hasBody
      ? (Readable.toWeb(req) as ReadableStream<Uint8Array>).pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              size += chunk.byteLength;
              if (size > MAX_BODY) {
                tooLarge = true;
                controller.error(new RangeError("the request body is too large"));
                return;
              }
              controller.enqueue(chunk);
            },
          }),
        )
      : undefined;
    const response = await handler(
      new Request(`http://127.0.0.1${req.url ?? "/"}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body, duplex: "half" }),
      } as RequestInit),
    );
    if (tooLarge) throw new RangeError("the request body is too large");
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body === null) {
      res.end();
      return;
    }
    const stream = Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]);
    res.on("close", () => stream.destroy());
    stream.on("error", () => res.destroy()).pipe(res);
  } catch (error) {
    if (tooLarge) {
      if (!res.headersSent) res.writeHead(413, { "content-type": "application/json", connection: "close" });
      res.end(JSON.stringify({ error: `a request body may hold at most ${MAX_BODY} bytes` }));
      return;
    }
    process.stderr.write(
      `agentloop serve: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "the server failed to answer the request" }));
  }
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      const why = error.code === "EADDRINUSE" ? "it is in use (give another --port, or 0)" : error.message;
      reject(new UsageError(`cannot listen on 127.0.0.1:${port}: ${why}`));
    });
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : port);
    });
  });
}

/** Resolves when the process is asked to stop (Ctrl-C, SIGTERM). */
function stoppedSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** `agentloop serve`, as the command table loads it. */
export const command: LoadedCommand = { run: serveCommand, help: SERVE_HELP };
