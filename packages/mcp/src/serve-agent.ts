import { randomUUID } from "node:crypto";
import type { AgentResult, Decision, Principal } from "@agentloop/core";
import {
  type ConversationAsk,
  conversationIdProblem,
  conversationState,
  decideTurn,
  followLog,
  isRefusal,
  nextTurn,
  refusalOf,
  type ServeOptions,
  ServeRefusal,
  takeTurn,
  undriven,
} from "@agentloop/core/serve";
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

export type { ServeOptions } from "@agentloop/core/serve";

/** The served tool's arguments: a task for a new run, or a `runId` to take further (with a task) or to read back (without). */
interface AgentCallArgs {
  readonly task?: string;
  readonly runId?: string;
}

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
 * What a call does is decided by `@agentloop/core/serve`, as on every front door: a run taken
 * further or resumed is given again what its log cannot hold, and a run cut off is finished from its
 * log first. A run that fails is told as "the agent failed (<runId>)" unless `exposeErrors`; the
 * error goes to `onError`. Connect it with `StdioServerTransport` (a local server: no request, so
 * no principal; `authorize` is refused here), or serve it over Streamable HTTP with
 * `serveAgentHttp`, which checks every request and serves each principal its own runs only.
 */
export function serveAgent(options: ServeOptions & { name: string; description: string }): McpServer {
  if (options.authorize !== undefined) {
    throw new TypeError("serveAgent has no requests to authorize: serve an agent with authorize over serveAgentHttp");
  }
  return agentServer(options, undefined);
}

/** The agent's MCP server for the requests of `principal` (`undefined`: none): it sees that principal's runs only. */
export function agentServer(
  options: ServeOptions & { name: string; description: string },
  principal: Principal | undefined,
): McpServer {
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
    const asked = { runId: "" };
    // A task-augmented call is answered with its task or refused as a JSON-RPC error (MCP Tasks: a
    // receiver that accepts it returns a CreateTaskResult), so a client's task runtime is told why.
    const augmented = "task" in request.params && request.params.task !== undefined;
    try {
      const result = await call(options, principal, request, ctx, asked);
      if (augmented && !("task" in result)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, textOf(result));
      return isInputRequiredResult(result) || "task" in result ? result : low.projectCallToolResult(result, undefined);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      // A refusal says why in our words; a run's failure is told as the serving options say.
      const refused = isRefusal(error);
      // refusalOf: a refusal in its own words (a log's problem without the store's files), else the failure as clientError tells it.
      const { message } = refusalOf(options, asked.runId, error);
      if (augmented)
        throw new ProtocolError(refused ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError, message);
      return failure(message);
    }
  });
  serveTasks(low, options, principal);
  return server;
}

async function call(
  serve: ServeOptions,
  principal: Principal | undefined,
  request: CallToolRequest,
  ctx: ServerContext,
  asked: { runId: string },
): Promise<CallToolResult | InputRequiredResult> {
  const checked = await ARGS["~standard"].validate(request.params.arguments ?? {});
  if (checked.issues !== undefined) {
    const problems = checked.issues.map((issue) => issue.message).join("; ");
    return failure(`Input validation error: Invalid arguments for tool ${request.params.name}: ${problems}`);
  }
  const args = checked.value;
  if ("task" in request.params && request.params.task !== undefined) return startTask(serve, principal, args, asked);
  const state = ctx.mcpReq.requestState<string>();
  if (typeof state === "string") {
    asked.runId = state;
    return answer(await decide(serve, principal, state, ctx.mcpReq.inputResponses ?? {}));
  }
  const runId = args.runId ?? randomUUID();
  asked.runId = runId;
  return answer(await start(serve, principal, args, runId));
}

/** A task-augmented call: a new run, answered at once with its task (MCP Tasks). */
async function startTask(
  serve: ServeOptions,
  principal: Principal | undefined,
  args: AgentCallArgs,
  asked: { runId: string },
): Promise<CallToolResult> {
  const { task } = args;
  if (task === undefined || task.trim() === "") throw new RangeError("a task-augmented call needs a task");
  const runId = args.runId ?? randomUUID();
  checkRunId(runId);
  asked.runId = runId;
  // Whoever holds the id, it names a run already: a task starts a new one.
  if ((await serve.store.read(runId)).length > 0) {
    throw new RangeError(`run '${runId}' is already known: a task starts a new run (follow that one with tasks/get)`);
  }
  // A CreateTaskResult; the empty `content` lets it through the SDK's tools/call result check.
  const created: CallToolResult = { content: [] };
  return Object.assign(created, { task: await createTask(serve, principal, runId, task) });
}

function checkRunId(runId: string): void {
  const problem = conversationIdProblem(runId, "runId");
  if (problem !== null) throw new RangeError(problem);
}

/** `{ task }` starts a run, `{ runId, task }` takes it further, `{ runId }` reads what it came to (following one still going). */
async function start(
  serve: ServeOptions,
  principal: Principal | undefined,
  args: AgentCallArgs,
  runId: string,
): Promise<AgentResult> {
  const { task } = args;
  if (task !== undefined && task.trim() === "") throw new RangeError("task must not be empty");
  checkRunId(runId);
  if (task === undefined && args.runId === undefined)
    throw new RangeError("give a task, or the runId of a run to read back");
  const ask: ConversationAsk = task === undefined ? { kind: "read" } : { kind: "message", content: task };
  for (;;) {
    const turn = await nextTurn(serve, principal, runId, ask, { noun: "run" });
    if (turn instanceof ServeRefusal)
      throw new RangeError(turn.status === 404 ? `run '${runId}' is not known` : turn.message);
    if ("step" in turn) return turn.feed.result;
    // A run this process drives (a task's) is waited for; one another process drives is followed in
    // its log to its end or pause (or its writer's going away); then the log says what it came to.
    if (turn.kind === "follow") await undriven(serve.store, runId);
    else await followLog(serve.store, runId, { from: turn.from }).result.catch(() => undefined);
  }
}

/** The client's answers to the forms of a paused run: a question's accepted form is its answer, a call's its decision. */
async function decide(
  serve: ServeOptions,
  principal: Principal | undefined,
  runId: string,
  responses: Record<string, unknown>,
): Promise<AgentResult> {
  const known = conversationIdProblem(runId, "runId") === null;
  const state = known ? await conversationState(serve, principal, runId) : ({ kind: "none" } as const);
  if (state.kind === "none" || state.kind === "foreign") throw new RangeError(`run '${runId}' is not known`);
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
  const step = decideTurn("run", runId, state, { kind: "resume", decisions, answers });
  if (step instanceof ServeRefusal || step.kind === "follow" || step.kind === "follow-log") {
    throw new RangeError(step instanceof ServeRefusal ? step.message : `run '${runId}' is still going`);
  }
  const turn = takeTurn(serve, principal, runId, step, { noun: "run" });
  if (turn instanceof ServeRefusal) throw new RangeError(turn.message);
  return turn.feed.result;
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

/** The text of a result that refused a call. */
function textOf(result: CallToolResult | InputRequiredResult): string {
  if (isInputRequiredResult(result)) return "the call cannot be a task";
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
