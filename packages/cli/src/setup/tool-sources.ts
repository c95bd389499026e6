import { UsageError } from "../cli-error.js";
import { ToolRegistry } from "../core-api.js";
import { loadTools } from "./tools-module.js";

/** The flags that say where a run's tools come from: a tools module, MCP servers, or both (for `parseArgs`). */
export const TOOL_SOURCE_OPTIONS: {
  readonly tools: { type: "string" };
  readonly mcp: { type: "string"; multiple: true; default: string[] };
  readonly "mcp-url": { type: "string"; multiple: true; default: string[] };
} = {
  tools: { type: "string" },
  mcp: { type: "string", multiple: true, default: [] },
  "mcp-url": { type: "string", multiple: true, default: [] },
};

/** The help lines of those flags. */
export const TOOL_SOURCE_HELP = `  --tools <module>         a JavaScript or TypeScript module (.js, .mjs, .ts, .mts) whose default
                           export (or 'register' export) is a function (registry) => void that
                           registers tools on a ToolRegistry
  --mcp "<command>"        an MCP server to start (stdio) whose tools the run may use; repeatable
  --mcp-url <url>          an MCP server to reach over Streamable HTTP whose tools the run may use; repeatable`;

/** The flags' values, as `parseArgs` gives them. */
export interface ToolSourceValues {
  readonly tools?: string | undefined;
  readonly mcp: readonly string[];
  readonly "mcp-url": readonly string[];
}

/** A run's tools, gathered: the registry, the flags that gather them again (for hints), and how to let the servers go. */
export interface ToolSources {
  readonly registry: ToolRegistry;
  readonly flags: readonly string[];
  close(): Promise<void>;
}

/** The flags of `values` as words of a command line, for the hints that go on with a run. */
export function toolSourceFlags(values: ToolSourceValues): string[] {
  return [
    ...(values.tools === undefined ? [] : ["--tools", values.tools]),
    ...values.mcp.flatMap((command) => ["--mcp", command]),
    ...values["mcp-url"].flatMap((url) => ["--mcp-url", url]),
  ];
}

/** Refuses a command line that names no tool source, before anything is read or started. */
export function requireToolSource(command: string, values: ToolSourceValues): void {
  if (values.tools === undefined && values.mcp.length === 0 && values["mcp-url"].length === 0) {
    throw new UsageError(
      `'agentloop ${command}' needs --tools <module> or an MCP server (--mcp, --mcp-url); see 'agentloop ${command} --help'`,
    );
  }
}

/**
 * Loads the tools module and connects the MCP servers, adding their tools to `registry` (default: a
 * new one); none of them is a `UsageError` naming `command`.
 */
export async function openToolSources(
  command: string,
  values: ToolSourceValues,
  registry: ToolRegistry = new ToolRegistry(),
): Promise<ToolSources> {
  requireToolSource(command, values);
  if (values.tools !== undefined) await loadTools(values.tools, registry);
  if (values.mcp.length === 0 && values["mcp-url"].length === 0) {
    return { registry, flags: toolSourceFlags(values), close: async () => {} };
  }
  // The MCP SDK is read only by a command line that names a server: every other run starts faster.
  const { addMcpTools, connectMcpServers } = await import("./mcp-servers.js");
  const servers = await connectMcpServers(values.mcp, values["mcp-url"]);
  addMcpTools(registry, servers);
  return { registry, flags: toolSourceFlags(values), close: () => servers.close() };
}
