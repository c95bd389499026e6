/** The start's token, which every request that changes something carries in its header. */
function token(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="studio-token"]')?.content ?? "";
}

/** Posts JSON with the token; a refusal's reason goes to `failed`, and the answer is `null`. */
export async function post(
  path: string,
  body: unknown,
  failed: (text: string) => void,
): Promise<{ readonly runId: string } | null> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-agentloop-token": token() },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { runId?: string; error?: string };
  if (!response.ok || answer.runId === undefined) {
    failed(answer.error ?? `the studio answered ${response.status}`);
    return null;
  }
  return { runId: answer.runId };
}

/** What the server's events say: a run changed; a run the studio drives streamed text. */
export interface StudioListener {
  readonly open: () => void;
  readonly run: (runId: string) => void;
  readonly delta?: (runId: string, text: string) => void;
}

/** Listens to `GET /events` (server-sent events). */
export function studioEvents(listener: StudioListener): EventSource {
  const source = new EventSource("/events");
  source.onopen = () => listener.open();
  source.onmessage = (message: MessageEvent<string>) => listener.run(message.data);
  source.addEventListener("delta", (message: MessageEvent<string>) => {
    const delta = JSON.parse(message.data) as { runId: string; text: string };
    listener.delta?.(delta.runId, delta.text);
  });
  return source;
}
