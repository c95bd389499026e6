/** An answer to a remote question, as the call noted it: sent when `sent`, else cut off while it was sent. */
export interface KeptAnswer {
  readonly question: string;
  readonly text: string;
  readonly reply: string;
  readonly messageId: string;
  sent: boolean;
}

/** What a call's notes say of its remote task: the context id it chose, the task id, the answers sent on it. */
export interface KeptTask {
  readonly contextId?: string;
  readonly taskId?: string;
  readonly answers: KeptAnswer[];
}

/** Folds a call's notes (`ToolContext.notes`) into what it knows of its remote task. */
export function keptOf(notes: readonly unknown[]): KeptTask {
  let contextId: string | undefined;
  let taskId: string | undefined;
  const answers: KeptAnswer[] = [];
  for (const note of notes) {
    if (typeof note !== "object" || note === null) continue;
    const { contextId: context, taskId: task, sending, sent } = note as Record<string, unknown>;
    if (typeof context === "string") contextId = context;
    if (typeof task === "string") taskId = task;
    if (typeof sending === "object" && sending !== null) {
      const { question, text, reply, messageId } = sending as Record<string, unknown>;
      if ([question, text, reply, messageId].every((value) => typeof value === "string")) {
        answers.push({ question, text, reply, messageId, sent: false } as KeptAnswer);
      }
    }
    if (typeof sent === "string") for (const answer of answers) if (answer.question === sent) answer.sent = true;
  }
  return { ...(contextId === undefined ? {} : { contextId }), ...(taskId === undefined ? {} : { taskId }), answers };
}
