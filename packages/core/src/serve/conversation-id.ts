/** What a store can name a run: the JSONL store's file names, which every store takes. */
const RUN_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

/** Why `id` cannot name a conversation's run, in one line naming it as `what` ("chat id"), or `null` when it can. */
export function conversationIdProblem(id: string, what: string): string | null {
  if (RUN_ID.test(id)) return null;
  const shown = JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}… (${id.length} characters)` : id).slice(1, -1);
  return `${what} '${shown}' cannot name a run: use 1-128 letters, digits, '_', '-' or '.', not starting with '.'`;
}
