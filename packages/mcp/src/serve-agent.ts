import { randomUUID } from "node:crypto";
import {
  type AgentResult,
  continueAgent,
  type Decision,
  type EventStore,
  type Model,
  resumeAgent,
  runAgent,
  type ToolCall,
  type ToolRegistry,
} from "@agentloop/core";
import type { AgentOptions } from "@agentloop/core/machine";
import {
  type CallToolResult,
  fromJsonSchema,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  McpServer,
} from "@modelcontextprotocol/server";

/** What a served agent runs with: its model and tools, the store that keeps its runs, and its limits and policies. */
export interface ServeOptions {
  readonly model: Model;
  readonly registry: ToolRegistry;
  readonly store: EventStore;
  readonly options?: AgentOptions;
}

/** The served tool's arguments: a task for a new run, or a `runId` to take further (with a task) or to read back (without). */
interface AgentCallArgs {
  readonly task?: string;
  readonly runId?: string;
}

const RUN_ID = /^[A-Za-z0-9_.-]+$/;
const DECISION_SCHEMA = {
  type: "object" as const,
  properties: { approved: { type: "boolean" as const }, reason: { type: "string" as const } },
  required: ["approved"],
};
/** Where the run's id is told in a result's `_meta`. */
export const RUN_ID_META = "agentloop/runId";

/**
 * The agent as an MCP server with one tool, `name`: `{ task }` runs the agent on the task and
 * answers with its answer as text (and a typed `output` as `structuredContent`), the run's id in
 * `_meta["agentloop/runId"]`. `{ runId, task }` takes that conversation further; `{ runId }` alone
 * answers from the log what the run came to (waiting for a run still going), so a client that lost
 * its connection gets the result without running anything again. A run that waits for approval
 * answers `input_required` (MCP's multi-round-trip requests): one form elicitation per waiting call,
 * keyed by call id (`{ approved, reason? }`), with the run id as `requestState`; the client's retry
 * decides the calls (a declined or cancelled form denies) and the run goes on. Only the store is
 * trusted: a decision for a call that does not wait in that run is refused as a tool error.
 * Connect it with `StdioServerTransport`, or serve it over Streamable HTTP with `createMcpHandler`.
 */
export function serveAgent(options: ServeOptions & { name: string; description: string }): McpServer {
  const server = new McpServer({ name: options.name, version: "1.0.0" });
  const inputSchema = fromJsonSchema<AgentCallArgs>({
    type: "object",
    properties: {
      task: { type: "string", description: "What the agent is asked to do, or the next message of a conversation." },
      runId: {
        type: "string",
        description: "A run to take further with `task`, or to read the result of (without `task`).",
      },
    },
    additionalProperties: false,
  });
  server.registerTool(options.name, { description: options.description, inputSchema }, async (args, ctx) => {
    try {
      const state = ctx.mcpReq.requestState<string>();
      if (typeof state === "string") return answer(await decide(options, state, ctx.mcpReq.inputResponses ?? {}));
      return answer(await start(options, args));
    } catch (error) {
      return failure(error instanceof Error ? error.message : String(error));
    }
  });
  return server;
}

async function start(serve: ServeOptions, args: AgentCallArgs): Promise<AgentResult> {
  const { model, registry, store } = serve;
  const { task, runId } = args;
  if (task !== undefined && task.trim() === "") throw new RangeError("task must not be empty");
  if (runId !== undefined && !RUN_ID.test(runId)) {
    throw new RangeError(`runId '${runId}' cannot name a run: use letters, digits, '_', '-' and '.'`);
  }
  const known = runId !== undefined && (await store.read(runId)).length > 0;
  if (task === undefined) {
    if (runId === undefined) throw new RangeError("give a task, or the runId of a run to read back");
    if (!known) throw new RangeError(`run '${runId}' is not known`);
    // A finished run's result comes back as logged; a paused one tells what it waits for; a run still going is waited for.
    return resumeAgent(runId, model, registry, { store });
  }
  if (known) return continueAgent(runId, task, model, registry, { store });
  return runAgent(task, model, registry, { ...serve.options, store, runId: runId ?? randomUUID() });
}

async function decide(serve: ServeOptions, runId: string, responses: Record<string, unknown>): Promise<AgentResult> {
  if (!RUN_ID.test(runId) || (await serve.store.read(runId)).length === 0)
    throw new RangeError(`run '${runId}' is not known`);
  const decisions: Record<string, Decision> = {};
  for (const callId of Object.keys(responses)) {
    const view = inputResponse(responses, callId);
    const content = view.kind === "elicit" && view.action === "accept" ? view.content : undefined;
    decisions[callId] =
      content === undefined
        ? { approved: false, reason: "the client declined the call" }
        : {
            approved: content.approved === true,
            ...(typeof content.reason === "string" ? { reason: content.reason } : {}),
          };
  }
  return resumeAgent(runId, serve.model, serve.registry, { store: serve.store, decisions });
}

function answer(result: AgentResult): CallToolResult | InputRequiredResult {
  const runId = result.runId ?? "";
  if (result.status === "awaiting_approval") {
    const inputRequests = Object.fromEntries(
      (result.pendingApprovals ?? []).map((call) => [
        call.id,
        inputRequired.elicit({ message: approvalPrompt(call), requestedSchema: DECISION_SCHEMA }),
      ]),
    );
    return inputRequired({ inputRequests, requestState: runId });
  }
  const _meta = { [RUN_ID_META]: runId };
  if (result.status !== "done") {
    const why = result.guardrail === undefined ? "" : ` (${result.guardrail.name}: ${result.guardrail.reason})`;
    return { content: [{ type: "text", text: `The run ended ${result.status}${why}.` }], isError: true, _meta };
  }
  const output = result.output;
  const structured =
    typeof output === "object" && output !== null && !Array.isArray(output)
      ? { structuredContent: output as Record<string, unknown> }
      : {};
  return { content: [{ type: "text", text: result.answer ?? "" }], ...structured, _meta };
}

function approvalPrompt(call: ToolCall): string {
  return `Approve ${call.name} with ${JSON.stringify(call.args)}?`;
}

function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
