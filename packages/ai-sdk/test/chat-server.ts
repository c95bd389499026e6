import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";

/** Serves a web-standard handler on 127.0.0.1 through Node's http; `close` ends it. */
export async function listen(
  handler: (request: Request) => Promise<Response>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    try {
      const response = await handler(toRequest(req, controller.signal, await bodyOf(req)));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body === null) return void res.end();
      const reader = response.body.getReader();
      res.on("close", () => void reader.cancel().catch(() => {}));
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    } catch (error) {
      res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/chat`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function bodyOf(req: IncomingMessage): Promise<Buffer | undefined> {
  if (req.method === "GET" || req.method === "HEAD") return undefined;
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

function toRequest(req: IncomingMessage, signal: AbortSignal, body: Buffer | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  return new Request(`http://127.0.0.1${req.url ?? "/"}`, {
    method: req.method ?? "GET",
    headers,
    signal,
    ...(body === undefined ? {} : { body: new Uint8Array(body) }),
  });
}

class ArrayState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage): void => void this.messages.push(message);
  popMessage = (): void => void this.messages.pop();
  replaceMessage = (index: number, message: UIMessage): void => {
    this.messages[index] = message;
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The AI SDK's own chat (what `useChat` wraps) in Node: `DefaultChatTransport` against `api`. */
export class NodeChat extends AbstractChat<UIMessage> {
  constructor(
    id: string,
    api: string,
    options: {
      autoSend?: boolean;
      onError?: (error: Error) => void;
      messages?: UIMessage[];
      /** Sends on its own when this holds (`autoSend`: once every approval has a response). */
      sendWhen?: (options: { messages: UIMessage[] }) => boolean | PromiseLike<boolean>;
      /** Headers of every request (a tenant's credentials). */
      headers?: Record<string, string>;
    } = {},
  ) {
    const state = new ArrayState();
    state.messages = structuredClone(options.messages ?? []);
    super({
      id,
      state,
      transport: new DefaultChatTransport({
        api,
        ...(options.headers === undefined ? {} : { headers: options.headers }),
      }),
      ...(options.onError === undefined ? {} : { onError: options.onError }),
      ...(options.autoSend === true
        ? { sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses }
        : {}),
      ...(options.sendWhen === undefined ? {} : { sendAutomaticallyWhen: options.sendWhen }),
    });
  }
}

/** The text of a chat's last message, its text parts joined. */
export function lastText(messages: readonly UIMessage[]): string {
  return (messages.at(-1)?.parts ?? [])
    .filter((part) => part.type === "text")
    .map((part) => (part as { text: string }).text)
    .join("");
}
