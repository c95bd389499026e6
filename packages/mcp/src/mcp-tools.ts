import { jsonSchema, type Tool, type ToolOptions, type ToolParameters, tool } from "@agentloop/core";
import type { Client, Tool as McpTool } from "@modelcontextprotocol/client";
import { AskingCalls } from "./elicitation.js";
import { toolNameOf } from "./tool-name.js";
import { resultValue } from "./tool-result.js";

/** The parts of a connected `Client` that `mcpTools` uses (`setRequestHandler` to answer a server's questions). */
export type McpClient = Pick<Client, "listTools" | "callTool"> &
  Partial<Pick<Client, "setRequestHandler" | "assertCanSetRequestHandler">>;

/** Which tools to take and how the harness treats them. */
export interface McpToolsOptions {
  /** Put before every name, to tell several servers' tools apart (`"github_"`). */
  readonly prefix?: string;
  /** The MCP names of the tools to take, or a test of each listed tool (default: all of them). */
  readonly include?: readonly string[] | ((tool: McpTool) => boolean);
  /** Options for every tool, over what the server's annotations give. */
  readonly options?: ToolOptions;
  /** Options per tool, by MCP name, over both. */
  readonly overrides?: Readonly<Record<string, ToolOptions>>;
  /**
   * Told, in one line, of listed tools that are left out and why, and (once per client) that a
   * client's own elicitation handler is kept (default `console.warn`).
   */
  readonly onWarning?: (message: string) => void;
}

const mcpNames = new WeakMap<object, string>();
/** Each client's calls in flight, made once per client: its elicitation handler is set once. */
const askingCalls = new WeakMap<object, AskingCalls>();
/** The longest wait a timer can honour, in milliseconds. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The tools a connected MCP client lists, ready for `registry.add(...)`: name (mapped by
 * `toolNameOf` when the providers would refuse it), description and input JSON Schema as listed;
 * a call goes to the server with the run's signal and the call's timeout (the tool's, else the
 * run's), arguments that fail the schema never reach it, and an `isError` result becomes an
 * `ERROR:` observation. Annotations give the options unless `options`/`overrides` say otherwise:
 * a tool needs approval unless it is `readOnlyHint` or `destructiveHint: false`; it is idempotent
 * when `readOnlyHint` or `idempotentHint`.
 * A server's question during a call (`elicitation/create`, form mode) is asked through the call's
 * `ask`, when the client declared `elicitationCapabilities`: the run pauses for it and the call is
 * made again with the answer (see `answerShape` for the answer's form). A client that set its own
 * `elicitation/create` handler keeps it, and `onWarning` is told so once.
 * A tool the server runs only as a task is left out, with a warning (`onWarning`). Throws
 * `ToolSchemaError` (from core) for a listed schema that cannot be enforced.
 */
export async function mcpTools(client: McpClient, options: McpToolsOptions = {}): Promise<Tool[]> {
  const { tools } = await client.listTools();
  const warn = options.onWarning ?? console.warn;
  const wanted = usable(
    tools.filter((listed) => included(listed, options.include)),
    warn,
  );
  let asking = askingCalls.get(client);
  if (asking === undefined) {
    asking = new AskingCalls();
    askingCalls.set(client, asking);
    asking.listen(client, warn);
  }
  const made = wanted.map((listed) => toAgentloopTool(client, listed, options, asking));
  const names = new Set<string>();
  for (const each of made) {
    if (names.has(each.name)) throw new Error(`two MCP tools map to the name '${each.name}': give a prefix or include`);
    names.add(each.name);
  }
  return made;
}

/** The MCP name of a tool `mcpTools` made (its name as the server knows it), or undefined for any other tool. */
export function mcpNameOf(made: Tool): string | undefined {
  return mcpNames.get(made);
}

/** The options annotations give, before the caller's: see `mcpTools`. */
export function annotationOptions(listed: McpTool): ToolOptions {
  const hints = listed.annotations ?? {};
  const readOnly = hints.readOnlyHint === true;
  return {
    needsApproval: !readOnly && hints.destructiveHint !== false,
    idempotent: readOnly || hints.idempotentHint === true,
  };
}

function toAgentloopTool(client: McpClient, listed: McpTool, options: McpToolsOptions, asking: AskingCalls): Tool {
  const settings: ToolOptions = {
    ...annotationOptions(listed),
    ...options.options,
    ...(Object.hasOwn(options.overrides ?? {}, listed.name) ? options.overrides?.[listed.name] : {}),
  };
  const made: Tool = tool({
    name: toolNameOf(listed.name, options.prefix),
    description: listed.description ?? listed.title ?? "",
    parameters: jsonSchema(listed.inputSchema as ToolParameters),
    execute: async (args, { signal, timeoutMs, ask }) => {
      const result = await asking.during(ask, signal, () =>
        client.callTool({ name: listed.name, arguments: args }, { signal, timeout: sdkTimeout(timeoutMs) }),
      );
      return resultValue(result);
    },
    ...settings,
  });
  mcpNames.set(made, listed.name);
  return made;
}

/**
 * The SDK's request timeout for a call that may take `timeoutMs` (its tool's, else the run's): the
 * SDK cuts a request at 60 s unless told, with an error that hides that the call may have run; with
 * the same timeout, the harness's own timer (started first) ends the call and says so. No limit is
 * the longest a timer waits, leaving the call to the run's signal. Never reset on progress: the
 * call's timeout is a bound on the whole call.
 */
function sdkTimeout(timeoutMs: number | undefined): number {
  return Math.min(timeoutMs ?? Number.POSITIVE_INFINITY, MAX_TIMER_MS);
}

/**
 * The tools a plain call can run: a tool the server runs only as a task (`execution.taskSupport:
 * "required"`) refuses a plain call (-32601), and the SDK's client has no task protocol to run it,
 * so it is left out, with a warning naming it, rather than offered to a model that cannot use it.
 */
function usable(tools: readonly McpTool[], warn: (message: string) => void): McpTool[] {
  const taskOnly = new Set(tools.filter((listed) => listed.execution?.taskSupport === "required"));
  if (taskOnly.size === 0) return [...tools];
  const names = [...taskOnly].map((listed) => `'${listed.name}'`).join(", ");
  warn(`mcpTools: left out ${names}: the server runs them only as tasks, which this client does not support`);
  return tools.filter((listed) => !taskOnly.has(listed));
}

function included(listed: McpTool, include: McpToolsOptions["include"]): boolean {
  if (include === undefined) return true;
  return typeof include === "function" ? include(listed) : include.includes(listed.name);
}
