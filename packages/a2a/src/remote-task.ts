import { type Message, type Part, Role, type Task, TaskState } from "@a2a-js/sdk";

/** What a remote task came to, as the tool reads it from `GetTask`. */
export type RemoteStep =
  | { readonly kind: "working" }
  | { readonly kind: "done"; readonly text: string }
  | { readonly kind: "failed"; readonly state: string; readonly text: string }
  | { readonly kind: "question"; readonly id: string; readonly text: string };

/** Where a remote task stands: still working, done with its artifacts' text, ended another way, or waiting for input. */
export function stepOf(task: Task): RemoteStep {
  const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  const said = textOf(task.status?.message?.parts ?? []);
  switch (state) {
    case TaskState.TASK_STATE_COMPLETED: {
      const artifacts = task.artifacts.map((artifact) => textOf(artifact.parts)).filter((text) => text !== "");
      return { kind: "done", text: artifacts.length > 0 ? artifacts.join("\n") : said };
    }
    case TaskState.TASK_STATE_FAILED:
    case TaskState.TASK_STATE_CANCELED:
    case TaskState.TASK_STATE_REJECTED:
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return { kind: "failed", state: TaskState[state] ?? String(state), text: said };
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return {
        kind: "question",
        id: task.status?.message?.messageId ?? "",
        text: said || "The remote agent needs more input.",
      };
    default:
      return { kind: "working" };
  }
}

/** The text of a message's or an artifact's parts: text as it is, data as JSON, files by their name or URL. */
export function textOf(parts: readonly Part[]): string {
  return parts
    .map((part) => {
      const { content } = part;
      if (content === undefined) return "";
      if (content.$case === "text") return content.value;
      if (content.$case === "data") return JSON.stringify(content.value);
      if (content.$case === "url") return content.value;
      return part.filename === "" ? "(a file)" : `(file ${part.filename})`;
    })
    .filter((text) => text !== "")
    .join("\n");
}

/** A user message of text for the remote agent, with the ids the tool chose (so a resent one is known by them). */
export function userMessage(text: string, ids: { messageId: string; contextId: string; taskId?: string }): Message {
  return {
    messageId: ids.messageId,
    contextId: ids.contextId,
    taskId: ids.taskId ?? "",
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
