import type { Tool, ToolRegistry } from "@agentloop/core";
import { mcpTools } from "@agentloop/mcp";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { messageOf, UsageError } from "../cli-error.js";

/** The tools of the MCP servers `run` was given, and how to let the servers go. */
export interface McpServers {
  readonly tools: readonly Tool[];
  /** Disconnects every server (and ends the processes `--mcp` started). */
  close(): Promise<void>;
}

/**
 * Connects to each `--mcp "<command>"` (started as a child process speaking MCP over stdio) and
 * each `--mcp-url <url>` (Streamable HTTP), and lists their tools. A server that cannot be started,
 * reached or listed is a `UsageError` naming it, after the ones already connected are let go.
 */
export async function connectMcpServers(commands: readonly string[], urls: readonly string[]): Promise<McpServers> {
  const clients: Client[] = [];
  const close = async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
  };
  const tools: Tool[] = [];
  const servers = [
    ...commands.map((command) => ({ label: `--mcp "${command}"`, transport: () => stdioTransport(command) })),
    ...urls.map((url) => ({
      label: `--mcp-url ${url}`,
      transport: () => new StreamableHTTPClientTransport(parseUrl(url)),
    })),
  ];
  for (const { label, transport } of servers) {
    const client = new Client({ name: "agentloop", version: "0.1.0" });
    try {
      await client.connect(transport());
      clients.push(client);
      tools.push(...(await mcpTools(client)));
    } catch (error) {
      await client.close().catch(() => {});
      await close();
      throw new UsageError(`MCP server ${label} could not be used: ${messageOf(error)}`);
    }
  }
  return { tools, close };
}

function stdioTransport(command: string): StdioClientTransport {
  const [file, ...args] = splitCommand(command);
  if (file === undefined) throw new UsageError('--mcp needs a command, such as --mcp "node server.js"');
  return new StdioClientTransport({ command: file, args, stderr: "ignore" });
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new UsageError(`--mcp-url ${url} is not a URL`);
  }
}

/**
 * Splits a command line into words as a POSIX shell would for the simple cases: blanks separate
 * words, single quotes keep everything, double quotes keep blanks, a backslash escapes the next character.
 */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (let index = 0; index < command.length; index++) {
    const char = command[index] as string;
    if (quote === "'") {
      if (char === "'") quote = null;
      else word += char;
    } else if (
      char === "\\" &&
      index + 1 < command.length &&
      (quote === null || '"\\$`'.includes(command[index + 1] as string))
    ) {
      word = (word ?? "") + command[++index];
    } else if (quote === '"') {
      if (char === '"') quote = null;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= "";
    } else if (/\s/.test(char)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? "") + char;
    }
  }
  if (quote !== null) throw new UsageError(`--mcp "${command}" has an unclosed ${quote}`);
  if (word !== null) words.push(word);
  return words;
}

/** Adds the servers' tools to `registry`; a name it already has is a `UsageError` (after the servers are let go). */
export function addMcpTools(registry: ToolRegistry, servers: McpServers): void {
  try {
    registry.add(...servers.tools);
  } catch (error) {
    void servers.close();
    throw new UsageError(`the MCP servers' tools could not be added: ${messageOf(error)}`);
  }
}
