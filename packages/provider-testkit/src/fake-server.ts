import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the fake server received it; `body` is the parsed JSON (or `undefined` when it was not JSON). */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
  /** Resolves when the client closes the connection before the answer was sent (an aborted request). */
  readonly abandoned: Promise<void>;
}

/** What a route answers: a status, a JSON body, and extra headers (e.g. `retry-after-ms`). */
export interface FakeResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** One server-sent event: written as an `event:` line (when named) and a `data:` line. */
export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

/**
 * What a route answers with a stream (status 200 unless given): its events in order, then the end
 * of the body (`close`, the default), a dropped connection (`cut`: the socket is destroyed with
 * the body unfinished), or silence until the client goes away (`hold`, to test aborts).
 */
export interface FakeStream {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly events: readonly SseEvent[];
  readonly end?: "close" | "cut" | "hold";
}

/** Either kind of answer. */
export type FakeAnswer = FakeResponse | FakeStream;

/** Answers one request that passed validation; `index` counts such requests from 0. */
export type FakeRoute = (request: RecordedRequest, index: number) => FakeAnswer | Promise<FakeAnswer>;

/** How a fake server checks and answers requests. */
export interface FakeServerOptions {
  /** Returns the wire-format problems of a request (none: `[]`); a request with problems never reaches `route`. */
  readonly validate?: (request: RecordedRequest) => string[];
  /** The answer to a request with problems (or whose route threw); a 400 that the SDKs do not retry by default. */
  readonly refuse?: (problems: readonly string[]) => FakeResponse;
  readonly route: FakeRoute;
}

/** A loopback HTTP server started by a test. */
export interface FakeServer {
  /** `http://127.0.0.1:<port>`, with no trailing slash. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: readonly RecordedRequest[];
  /** Wire-format problems found in requests; a test fails when this is not empty. */
  readonly violations: string[];
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

/**
 * Starts a `node:http` server on 127.0.0.1 and an OS-chosen port. Every request is recorded and
 * validated; a valid one is answered by `route`. Problems and a throwing route are recorded as
 * violations and answered by `refuse` with a status the SDKs do not retry, so a broken request or
 * a bug in a test's script fails fast and is never mistaken for a server error.
 */
export async function startFakeServer(options: FakeServerOptions): Promise<FakeServer> {
  const { validate = () => [], refuse = defaultRefusal, route } = options;
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  let routed = 0;
  const server = createServer((req, res) => {
    void answer(req, res);
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const abandoned = new Promise<void>((resolve) => {
      res.on("close", () => {
        if (!res.writableEnded) resolve();
      });
    });
    const request: RecordedRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body: parseJson(text),
      abandoned,
    };
    requests.push(request);
    const response = await respond(request);
    if (res.destroyed) return;
    if ("events" in response) {
      writeStream(res, response);
      return;
    }
    res.writeHead(response.status, { "content-type": "application/json", ...response.headers });
    res.end(JSON.stringify(response.body));
  }

  async function respond(request: RecordedRequest): Promise<FakeAnswer> {
    const problems = validate(request).map((problem) => `request ${requests.length}: ${problem}`);
    if (problems.length === 0) {
      try {
        return await route(request, routed++);
      } catch (error) {
        problems.push(`request ${requests.length}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    violations.push(...problems);
    return refuse(problems);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    violations,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function writeStream(res: ServerResponse, stream: FakeStream): void {
  res.writeHead(stream.status ?? 200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    ...stream.headers,
  });
  for (const { event, data } of stream.events) {
    res.write(`${event === undefined ? "" : `event: ${event}\n`}data: ${data}\n\n`);
  }
  // The events reach the client before the cut, so that it fails mid-stream, not before the answer.
  if (stream.end === "cut") res.write("", () => setTimeout(() => res.destroy(), 20));
  else if (stream.end !== "hold") res.end();
}

function defaultRefusal(problems: readonly string[]): FakeResponse {
  return { status: 400, headers: { "x-should-retry": "false" }, body: { error: { message: problems.join("; ") } } };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
