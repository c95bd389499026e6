import { randomUUID } from "node:crypto";
import { type AgentResult, continueAgent, type Decision, resumeAgent, runAgent } from "@agentloop/core";
import {
  type CallToolRequest,
  type CallToolResult,
  fromJsonSchema,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  isInputRequiredResult,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import {
  approvalPrompt,
  createTask,
  DECISION_SCHEMA,
  serveTasks,
  TASK_CAPABILITIES,
  toolResultOf,
} from "./agent-tasks.js";
import { questionForm } from "./question-form.js";
import { runStateOf } from "./run-task.js";
import { type ServeOptions, turnOptionsOf } from "./serve-options.js";
import { undriven } from "./task-runs.js";

export type { ServeOptions } from "./serve-options.js";

/** The served tool's arguments: a task for a new run, or a `runId` to take further (with a task) or to read back (without). */
interface AgentCallArgs {
  readonly task?: string;
  readonly runId?: string;
}

/** What a store can name a run: the JSONL store's file names, which every store takes. */
const RUN_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;
const INPUT_SCHEMA = {
  type: "object" as const,
  properties: {
    task: {
      type: "string" as const,
      description: "What the agent is asked to do, or the next message of a conversation.",
    },
    runId: {
      type: "string" as const,
      description: "A run to take further with `task`, or to read the result of (without `task`).",
    },
  },
  additionalProperties: false,
};
const ARGS = fromJsonSchema<AgentCallArgs>(INPUT_SCHEMA);
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
 * decides the calls (a declined or cancelled form denies) and the run goes on. A run that waits
 * for a person's answer (an ask-user tool's question) asks the same way, one form per question
 * (see `questionForm`); the accepted form is the answer, checked against the question's shape. Only the store is
 * trusted: a decision for a call that does not wait in that run is refused as a tool error.
 *
 * A client that asks for a task (a task-augmented `tools/call`, MCP Tasks of protocol revision
 * 2025-11-25) gets one at once: the run's id is the task's id, its status follows the run
 * (`working`, `input_required` while a call waits for approval or a question for its answer,
 * `completed`, `failed`, `cancelled`), `tasks/result` asks for the waiting approvals and answers
 * on its own stream (elicitation requests related to the task) and answers with
 * the run's result, and `tasks/cancel` cancels the run. Every answer is read from the log, so a
 * client that comes back on a new connection follows the same task.
 * Connect it with `StdioServerTransport`, or serve it over Streamable HTTP with `serveAgentHttp`.
 */
export function serveAgent(options: ServeOptions & { name: string; description: string }): McpServer {
  const server = new McpServer({ name: options.name, version: "1.0.0" });
  const low = server.server;
  low.registerCapabilities({ tools: {}, ...TASK_CAPABILITIES });
  low.setRequestHandler("tools/list", () => ({
    tools: [
      {
        name: options.name,
        description: options.description,
        inputSchema: INPUT_SCHEMA,
        execution: { taskSupport: "optional" as const },
      },
    ],
  }));
  low.setRequestHandler("tools/call", async (request, ctx) => {
    if (request.params.name !== options.name) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    }
    try {
      const result = await call(options, request, ctx);
      return isInputRequiredResult(result) || "task" in result ? result : low.projectCallToolResult(result, undefined);
    } catch (error) {
      return failure(error instanceof Error ? error.message : String(error));
    }
  });
  serveTasks(low, options);
  return server;
}

async function call(
  serve: ServeOptions,
  request: CallToolRequest,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const checked = await ARGS["~standard"].validate(request.params.arguments ?? {});
  if (checked.issues !== undefined) {
    const problems = checked.issues.map((issue) => issue.message).join("; ");
    return failure(`Input validation error: Invalid arguments for tool ${request.params.name}: ${problems}`);
  }
  const args = checked.value;
  if ("task" in request.params && request.params.task !== undefined) return startTask(serve, args);
  const state = ctx.mcpReq.requestState<string>();
  if (typeof state === "string") return answer(await decide(serve, state, ctx.mcpReq.inputResponses ?? {}));
  return answer(await start(serve, args));
}

/** A task-augmented call: a new run, answered at once with its task (MCP Tasks). */
async function startTask(serve: ServeOptions, args: AgentCallArgs): Promise<CallToolResult> {
  const { task } = args;
  if (task === undefined || task.trim() === "") throw new RangeError("a task-augmented call needs a task");
  const runId = args.runId ?? randomUUID();
  checkRunId(runId);
  if ((await serve.store.read(runId)).length > 0) {
    throw new RangeError(`run '${runId}' is already known: a task starts a new run (follow that one with tasks/get)`);
  }
  // A CreateTaskResult; the empty `content` lets it through the SDK's tools/call result check.
  const created: CallToolResult = { content: [] };
  return Object.assign(created, { task: await createTask(serve, runId, task) });
}

function checkRunId(runId: string): void {
  if (!RUN_ID.test(runId)) {
    const shown = JSON.stringify(runId.length > 40 ? `${runId.slice(0, 40)}… (${runId.length} characters)` : runId);
    throw new RangeError(
      `runId '${shown.slice(1, -1)}' cannot name a run: use 1-128 letters, digits, '_', '-' or '.', not starting with '.'`,
    );
  }
}

async function start(serve: ServeOptions, args: AgentCallArgs): Promise<AgentResult> {
  const { model, registry, store } = serve;
  const { task, runId } = args;
  if (task !== undefined && task.trim() === "") throw new RangeError("task must not be empty");
  if (runId !== undefined) checkRunId(runId);
  const known = runId !== undefined && (await store.read(runId)).length > 0;
  if (task === undefined) {
    if (runId === undefined) throw new RangeError("give a task, or the runId of a run to read back");
    if (!known) throw new RangeError(`run '${runId}' is not known`);
    // A run a task drives in this process is waited for, then read from its log.
    await undriven(store, runId);
    // A finished run's result comes back as logged; a paused one tells what it waits for; a run still going is waited for.
    return resumeAgent(runId, model, registry, { ...turnOptionsOf(serve), store });
  }
  if (known) return continueAgent(runId, task, model, registry, { ...turnOptionsOf(serve), store });
  return runAgent(task, model, registry, { ...serve.options, store, runId: runId ?? randomUUID() });
}

async function decide(serve: ServeOptions, runId: string, responses: Record<string, unknown>): Promise<AgentResult> {
  const events = RUN_ID.test(runId) ? await serve.store.read(runId) : [];
  if (events.length === 0) throw new RangeError(`run '${runId}' is not known`);
  const state = runStateOf(runId, events);
  const questions = state.kind === "waiting" ? state.questions : [];
  const decisions: Record<string, Decision> = {};
  const answers: Record<string, unknown> = {};
  for (const callId of Object.keys(responses)) {
    const view = inputResponse(responses, callId);
    const content = view.kind === "elicit" && view.action === "accept" ? view.content : undefined;
    const question = questions.find((each) => each.id === callId);
    if (question !== undefined) {
      if (content === undefined)
        throw new RangeError(`question '${callId}' was not answered: the client's form was not accepted`);
      answers[callId] = questionForm(question).answerOf(content);
      continue;
    }
    decisions[callId] =
      content === undefined
        ? { approved: false, reason: "the client declined the call" }
        : {
            approved: content.approved === true,
            ...(typeof content.reason === "string" ? { reason: content.reason } : {}),
          };
  }
  const options = { ...turnOptionsOf(serve), store: serve.store, decisions, answers };
  return resumeAgent(runId, serve.model, serve.registry, options);
}

function answer(result: AgentResult): CallToolResult | InputRequiredResult {
  const runId = result.runId ?? "";
  if (result.status === "awaiting_approval" || result.status === "awaiting_input") {
    const approvals = (result.pendingApprovals ?? []).map((call) => [
      call.id,
      inputRequired.elicit({ message: approvalPrompt(call), requestedSchema: DECISION_SCHEMA }),
    ]);
    const questions = (result.pendingQuestions ?? []).map((question) => {
      const { message, requestedSchema } = questionForm(question);
      return [question.id, inputRequired.elicit({ message, requestedSchema })];
    });
    return inputRequired({ inputRequests: Object.fromEntries([...approvals, ...questions]), requestState: runId });
  }
  return toolResultOf(result, { [RUN_ID_META]: runId });
}

function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
