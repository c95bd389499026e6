import { GetTaskRequest, ListTasksRequest, Message, SendMessageRequest } from "@a2a-js/sdk";
import { type Client, ClientFactory } from "@a2a-js/sdk/client";
import type { Tool, ToolContext } from "@agentloop/core";
import { tool } from "@agentloop/core";
import { type KeptTask, keptOf } from "./kept-task.js";
import { stepOf, textOf, userMessage } from "./remote-task.js";

/** A remote A2A agent, as `a2aAgentTool` calls it. */
export interface RemoteAgent {
  /** The agent's base URL: its agent card is read from `<url>/.well-known/agent-card.json`. */
  readonly url: string;
  /** The tool's name: 1-64 letters, digits, `_` or `-`. */
  readonly name: string;
  /** What the model is told the agent does (default: a sentence naming the agent's URL). */
  readonly description?: string;
  /** Milliseconds between two reads of the remote task while it works (default 500). */
  readonly pollMs?: number;
  /** Milliseconds a call may take, question pauses aside (default: the run's `toolTimeoutMs`). */
  readonly timeoutMs?: number;
  /** The client to call the agent with (default: one `ClientFactory` makes from the agent card at `url`). */
  readonly client?: Client;
}

const TASK_PARAMETERS = {
  type: "object",
  properties: { task: { type: "string", description: "What the agent should do, in full: it sees nothing else." } },
  required: ["task"],
} as const;

/**
 * A remote A2A agent as a tool: a call sends the task as a message and follows the remote task
 * (`GetTask`) until it ends; its observation is the text of the task's artifacts. The remote
 * task's context and task ids are logged (`tool.noted`) before the call waits on it, so a call
 * made again — its process died, or a question was answered — follows the same task and never
 * sends the message twice. A task that needs input (`TASK_STATE_INPUT_REQUIRED`) pauses the run
 * with its question (`awaiting_input`, under the call's id); the answer, given to `resumeAgent`,
 * is sent on the same task. A task that fails, is cancelled or rejected is an `ERROR:` observation.
 */
export function a2aAgentTool(remote: RemoteAgent): Tool<{ task: string }> {
  const { url, name, pollMs = 500, timeoutMs, client: given } = remote;
  if (typeof url !== "string" || !/^https?:\/\//.test(url))
    throw new TypeError(`the remote agent's url must be http(s); got ${String(url)}`);
  if (!(Number.isFinite(pollMs) && pollMs > 0))
    throw new RangeError(`pollMs must be milliseconds above 0; got ${pollMs}`);
  let connecting: Promise<Client> | undefined;
  const clientOf = (): Promise<Client> => {
    if (given !== undefined) return Promise.resolve(given);
    connecting ??= new ClientFactory().createFromUrl(url).catch((error: unknown) => {
      connecting = undefined;
      throw error;
    });
    return connecting;
  };
  return tool({
    name,
    description: remote.description ?? `Give a task to the remote agent at ${url}; it answers when the task is done.`,
    parameters: TASK_PARAMETERS,
    // Made again after a crash, a call follows the task its notes name: it never sends the task twice.
    idempotent: true,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    execute: async ({ task }, context) => follow(await clientOf(), task, context, pollMs),
  });
}

/** Sends the task once and follows the remote task it made to its end, asking the run's person what the remote asks. */
async function follow(client: Client, task: string, context: ToolContext, pollMs: number): Promise<string> {
  const kept = keptOf(context.notes);
  const { signal } = context;
  const contextId = kept.contextId ?? globalThis.crypto.randomUUID();
  if (kept.contextId === undefined) await context.note({ contextId });
  // The answers given before, in the order the questions came: each takes its place among the call's questions again.
  for (const answer of kept.answers) await context.ask(answer.text);
  let taskId = kept.taskId ?? (await taskOfContext(client, contextId, signal));
  if (taskId === undefined) {
    const message = userMessage(task, { messageId: `${contextId}/task`, contextId });
    const request = SendMessageRequest.fromJSON({
      message: Message.toJSON(message),
      configuration: { returnImmediately: true },
    });
    const sent = await client.sendMessage(request, { signal });
    // An agent may answer with a message at once, making no task.
    if (!("status" in sent)) return textOf(sent.parts);
    taskId = sent.id;
  }
  if (kept.taskId === undefined) await context.note({ taskId });
  for (;;) {
    const remote = await client.getTask(GetTaskRequest.fromJSON({ id: taskId }), { signal });
    const step = stepOf(remote);
    if (step.kind === "done") return step.text;
    if (step.kind === "failed") {
      throw new Error(`the remote agent's task ended ${step.state}${step.text === "" ? "" : `: ${step.text}`}`);
    }
    if (step.kind === "question") {
      const answer = kept.answers.find((each) => each.question === step.id);
      if (answer === undefined) {
        const value = await context.ask(step.text);
        await send(client, context, kept, taskId, contextId, step, value);
        continue;
      }
      // Cut off while the answer was sent: it is sent again only if the task never got it.
      if (!answer.sent) {
        if (!remote.history.some((said) => said.messageId === answer.messageId)) {
          await client.sendMessage(answerRequest(answer.reply, answer.messageId, taskId, contextId), { signal });
        }
        await context.note({ sent: answer.question });
        answer.sent = true;
      }
    }
    await sleep(pollMs, signal);
  }
}

/** Sends the answer to the remote's question on its task, noted before (with its message id) and after. */
async function send(
  client: Client,
  context: ToolContext,
  kept: KeptTask,
  taskId: string,
  contextId: string,
  question: { readonly id: string; readonly text: string },
  value: unknown,
): Promise<void> {
  const reply = typeof value === "string" ? value : JSON.stringify(value);
  const messageId = `${contextId}/answer/${kept.answers.length}`;
  await context.note({ sending: { question: question.id, text: question.text, reply, messageId } });
  const answer = { question: question.id, text: question.text, reply, messageId, sent: false };
  kept.answers.push(answer);
  await client.sendMessage(answerRequest(reply, messageId, taskId, contextId), { signal: context.signal });
  await context.note({ sent: question.id });
  answer.sent = true;
}

function answerRequest(reply: string, messageId: string, taskId: string, contextId: string): SendMessageRequest {
  const message = userMessage(reply, { messageId, contextId, taskId });
  return SendMessageRequest.fromJSON({ message: Message.toJSON(message), configuration: { returnImmediately: true } });
}

/** The task the message of this context made, when it was sent before the process died (the context id is the tool's own). */
async function taskOfContext(client: Client, contextId: string, signal: AbortSignal): Promise<string | undefined> {
  const listed = await client.listTasks(ListTasksRequest.fromJSON({ contextId }), { signal });
  return listed.tasks[0]?.id;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}
