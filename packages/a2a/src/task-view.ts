import { type Artifact, type Message, type Part, Role, type Task, TaskState } from "@a2a-js/sdk";
import { contentText, type MessageContent, type PendingQuestion, type ToolCall } from "@agentloop/core";
import type { ConversationState } from "@agentloop/core/serve";
import type { StoredEvent } from "@agentloop/core/store";

/** A task id: its context's id and its place in the context (`<contextId>.<n>`, from 1), so that the context is known from the id alone. */
const TASK_ID = /^(.+)\.([1-9][0-9]*)$/;

/** The id of task `n` (from 1) of context `contextId`. */
export function taskIdOf(contextId: string, n: number): string {
  return `${contextId}.${n}`;
}

/** The context and place of a task id, or `undefined` for an id no task of this server has. */
export function placeOf(taskId: string): { readonly contextId: string; readonly n: number } | undefined {
  const match = TASK_ID.exec(taskId);
  return match === null ? undefined : { contextId: match[1] as string, n: Number(match[2]) };
}

/** Where a task stands, as a conversation's state (`none` and `foreign` are never shown) and its log. */
export interface TaskRead {
  readonly state: Exclude<ConversationState, { kind: "none" } | { kind: "foreign" }>;
  readonly events: readonly StoredEvent[];
}

/**
 * The A2A task run `runId` is, from its log (pure): its history (the user's messages and the
 * agent's replies), its state — `working` while a turn goes, `input-required` while it waits for
 * a decision or an answer (the calls and questions in the status message), then `completed` with
 * the answer as its artifact, `canceled`, `rejected` (the model refused), or `failed` (a limit or
 * a check ended the turn, or a cut-off turn failed: `failure` says what the client is told).
 */
export function taskOf(runId: string, read: TaskRead, failure?: string): Task {
  const { state, events } = read;
  const contextId = placeOf(runId)?.contextId ?? runId;
  const at = events.at(-1)?.at ?? new Date().toISOString();
  const task = (status: TaskState, message?: Message, artifacts: Artifact[] = []): Task => ({
    id: runId,
    contextId,
    status: { state: status, message, timestamp: at },
    artifacts,
    history: historyOf(runId, contextId, events),
    metadata: undefined,
  });
  const said = (text: string) => agentMessage(`${runId}/status/${events.length}`, runId, contextId, [textPart(text)]);
  switch (state.kind) {
    case "going":
    case "held":
      return task(TaskState.TASK_STATE_WORKING);
    case "waiting": {
      const waiting = {
        approvals: state.calls.map(({ id, name, args }) => ({ id, name, args })),
        questions: state.questions.map(({ id, question, schema }) => ({ id, question, ...(schema ? { schema } : {}) })),
      };
      // The text asks a person; the metadata names each call and question for a program that answers by id.
      const asked = { ...said(promptOf(state.calls, state.questions)), metadata: { agentloop: waiting } };
      return task(TaskState.TASK_STATE_INPUT_REQUIRED, asked);
    }
    case "cut-off":
      // A turn cut off by a failure has failed; one whose process died is taken up by the next message on it.
      return failure === undefined
        ? task(TaskState.TASK_STATE_WORKING)
        : task(TaskState.TASK_STATE_FAILED, said(failure));
    case "ended": {
      const { result } = state;
      switch (result.status) {
        case "done": {
          const answer: Artifact = {
            artifactId: `${runId}/answer`,
            name: "answer",
            description: "",
            parts: [textPart(result.answer ?? "")],
            metadata: undefined,
            extensions: [],
          };
          return task(TaskState.TASK_STATE_COMPLETED, undefined, [answer]);
        }
        case "cancelled":
          return task(TaskState.TASK_STATE_CANCELED, said("The task was cancelled."));
        case "awaiting_approval":
        case "awaiting_input":
          return task(
            TaskState.TASK_STATE_INPUT_REQUIRED,
            said(promptOf(result.pendingApprovals ?? [], result.pendingQuestions ?? [])),
          );
        case "refused":
          return task(TaskState.TASK_STATE_REJECTED, said(result.answer ?? "The agent refused the task."));
        default: {
          const why = result.guardrail === undefined ? "" : ` (${result.guardrail.name}: ${result.guardrail.reason})`;
          return task(TaskState.TASK_STATE_FAILED, said(`The turn ended ${result.status}${why}.`));
        }
      }
    }
  }
}

/** What a waiting run asks in its status message: one line per call to decide and per question to answer. */
export function promptOf(calls: readonly ToolCall[], questions: readonly PendingQuestion[]): string {
  const lines = [
    ...calls.map((call) => `Approve ${call.name} with ${JSON.stringify(call.args)}? Answer yes or no.`),
    ...questions.map((question) => question.question),
  ];
  return lines.join("\n");
}

/** The task's history: the user's messages and the agent's replies with text, each known by its place in the log. */
function historyOf(runId: string, contextId: string, events: readonly StoredEvent[]): Message[] {
  const history: Message[] = [];
  for (const event of events) {
    const messageId = `${runId}/${event.seq}`;
    if (event.type === "run.started") history.push(userOf(messageId, runId, contextId, event.settings.task));
    else if (event.type === "user.messaged") history.push(userOf(messageId, runId, contextId, event.content));
    else if (event.type === "model.replied" && event.reply.content !== "") {
      history.push(agentMessage(messageId, runId, contextId, [textPart(event.reply.content)]));
    }
  }
  return history;
}

function userOf(messageId: string, taskId: string, contextId: string, content: MessageContent): Message {
  return { ...agentMessage(messageId, taskId, contextId, [textPart(contentText(content))]), role: Role.ROLE_USER };
}

/** An agent's message of `parts` (or of one text) on task `taskId`. */
export function agentMessage(messageId: string, taskId: string, contextId: string, parts: Part[] | string): Message {
  return {
    messageId,
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: typeof parts === "string" ? [textPart(parts)] : parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

/** Applies a request's `historyLength`: absent, all of it; 0, none; else the last that many messages. */
export function withHistoryLength(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  return { ...task, history: historyLength <= 0 ? [] : task.history.slice(-historyLength) };
}
