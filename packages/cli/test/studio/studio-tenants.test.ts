import { createHash, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { PostgresEventStore } from "@agentloop/postgres";
import { hangGuard } from "@agentloop/store-testkit/servers";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  asks,
  type EventStore,
  final,
  JsonlEventStore,
  type Principal,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "../../src/core-api.js";
import { fixture, tempDir } from "../cli.js";
import { type Studio, startStudio } from "../studio.js";

// `agentloop studio --authorize <module>`: every route, as the tenant whose run it is (own), as
// another tenant (other) and with no credentials (none). Another tenant's run is answered exactly
// as a run the store does not hold; nothing runs, nothing is logged.

const TOKENS = { own: "token-of-ana", other: "token-of-bo", none: undefined } as const;
type Caller = keyof typeof TOKENS;
const ACME: Principal = { tenant: "acme", user: "ana" };
const PICTURE = Buffer.from("not really a png, but bytes all the same");
const SHA = createHash("sha256").update(PICTURE).digest("hex");

const dir = tempDir();
const store = join(dir, "runs");
let studio: Studio;
let plain: Studio;

/** A run of the weather tools in `into` for `owner` (none: no one's), by the script `replies`. */
async function runFor(
  into: EventStore,
  runId: string,
  owner: Principal | undefined,
  replies: Parameters<typeof scriptedModel>[0],
) {
  const registry = new ToolRegistry();
  const { default: register } = (await import(fixture("tools.mjs"))) as {
    default: (registry: ToolRegistry) => void;
  };
  register(registry);
  const task = [
    { type: "text", text: "Report Delhi's weather." },
    { type: "image", mediaType: "image/png", data: PICTURE },
  ] as const;
  await runAgent(task, scriptedModel(replies), registry, {
    store: into,
    runId,
    ...(owner === undefined ? {} : { owner }),
  });
}

const GLOBEX: Principal = { tenant: "globex", user: "bo" };

beforeAll(async () => {
  const jsonl = new JsonlEventStore(store);
  await runFor(jsonl, "acme-done", ACME, [final("It is 35 C in Delhi.")]);
  await runFor(jsonl, "acme-waits", ACME, [asks(toolCall("m1", "send_report", { to: "ops@example.com" }))]);
  await runFor(jsonl, "globex-done", GLOBEX, [final("Done.")]);
  await runFor(jsonl, "nobodys", undefined, [final("Done.")]);
  const script = join(dir, "script.json");
  writeFileSync(script, JSON.stringify([{ content: "Sent.", toolCalls: [] }]));
  const tools = ["--tools", fixture("tools.mjs"), "--script", script];
  studio = await startStudio(["--store", store, ...tools, "--authorize", fixture("bearer-authorize.mjs")]);
  plain = await startStudio(["--store", store]);
}, hangGuard(60_000));

/** A request to the studio (`target`, default the one with --authorize) with its token, as `caller`: its status and body. */
async function ask(
  caller: Caller,
  path: string,
  body?: unknown,
  target: Studio = studio,
): Promise<{ status: number; body: string }> {
  const token = TOKENS[caller];
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const answer =
    body === undefined
      ? await fetch(target.base + path, { headers: { ...headers, cookie: `agentloop_studio=${target.token}` } })
      : await fetch(target.base + path, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json", "x-agentloop-token": target.token },
          body: JSON.stringify(body),
        });
  return { status: answer.status, body: await answer.text() };
}

const logOf = (runId: string) =>
  readFileSync(join(store, `${runId}.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; owner?: Principal });

/** Every route on a run, as a path (GET) or a path and a body (POST), for the run `id`. */
const ROUTES: readonly { name: string; path: (id: string) => string; body?: unknown }[] = [
  { name: "the run's page", path: (id) => `/runs/${id}` },
  { name: "its updates", path: (id) => `/api/runs/${id}/update?rows=0&ids=0&moves=0` },
  { name: "its chart", path: (id) => `/api/runs/${id}/chart` },
  { name: "its part's bytes", path: (id) => `/runs/${id}/blobs/${SHA}` },
  { name: "a comparison", path: (id) => `/compare?a=${id}&b=acme-done` },
  { name: "a decision", path: (id) => `/api/runs/${id}/decisions`, body: { callId: "m1", approved: false } },
  { name: "an answer", path: (id) => `/api/runs/${id}/answers`, body: { callId: "m1", answer: "yes" } },
  { name: "a fork", path: (id) => `/api/runs/${id}/fork`, body: { keep: 1 } },
  { name: "a next message", path: (id) => `/api/runs/${id}/messages`, body: { message: "And Pune?" } },
];

describe("agentloop studio --authorize: each tenant sees and acts on its own runs only", () => {
  it("lists the principal's runs only; without credentials, authorize's 401", async () => {
    const ids = async (caller: Caller) =>
      (JSON.parse((await ask(caller, "/api/runs")).body) as { runId: string }[]).map((row) => row.runId).sort();
    expect(await ids("own")).toEqual(["acme-done", "acme-waits"]);
    expect(await ids("other")).toEqual(["globex-done"]);
    const paged = JSON.parse((await ask("own", "/api/runs?limit=1")).body) as { runs: unknown[]; total: number };
    expect([paged.runs.length, paged.total]).toEqual([1, 2]);
    expect(await ask("none", "/api/runs")).toEqual({ status: 401, body: "sign in first" });
    expect((await ask("none", "/")).status).toBe(401);
  });

  it.each(ROUTES)("$name: another tenant's run is answered as an unknown run's, word for word", async (route) => {
    const sizes = () => ["acme-done", "acme-waits"].map((id) => logOf(id).length);
    const before = sizes();
    // The run `ghost` does not exist: what another tenant gets for acme's run must be that answer.
    for (const id of ["acme-done", "acme-waits"]) {
      const other = await ask("other", route.path(id), route.body);
      const unknown = await ask("own", route.path("ghost").replace("b=acme-done", "b=ghost"), route.body);
      expect(other.status, `${route.name} of ${id}`).toBe(404);
      expect(other.body).toBe(unknown.body.replaceAll("ghost", id));
      expect(await ask("none", route.path(id), route.body)).toEqual({ status: 401, body: "sign in first" });
    }
    expect(sizes()).toEqual(before);
  });

  it("the owner reads its run's page, updates, chart and part's bytes", async () => {
    for (const route of ROUTES.filter((route) => route.body === undefined)) {
      expect((await ask("own", route.path("acme-done"))).status, route.name).toBe(200);
    }
    expect((await ask("own", `/runs/acme-done/blobs/${SHA}`)).body).toBe(PICTURE.toString());
  });

  it("a run of no one's is no tenant's: 404 for every principal, shown without --authorize", async () => {
    for (const caller of ["own", "other"] as const) expect((await ask(caller, "/runs/nobodys")).status).toBe(404);
    const rows = (await (await plain.get("/api/runs")).json()) as { runId: string }[];
    expect(rows.map((row) => row.runId).sort()).toEqual(["acme-done", "acme-waits", "globex-done", "nobodys"]);
  });

  it("the owner's actions reach its runs; a fork and a started run are the principal's; another tenant's events never name them", async () => {
    const heard = { own: "", other: "" };
    const streams = (["own", "other"] as const).map(async (caller) => {
      const answer = await fetch(`${studio.base}/events`, {
        headers: { authorization: `Bearer ${TOKENS[caller]}`, cookie: `agentloop_studio=${studio.token}` },
        signal: AbortSignal.timeout(4000),
      });
      const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          heard[caller] += Buffer.from(value).toString();
        }
      } catch {
        // The stream is cut by the timeout: what was heard by then is the point.
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const fork = await ask("own", "/api/runs/acme-done/fork", { keep: 1 });
    expect(fork.status).toBe(201);
    const { runId: forkId } = JSON.parse(fork.body) as { runId: string };
    expect(logOf(forkId)[0]?.owner).toEqual(ACME);
    const started = await ask("own", "/api/runs", { task: "Report Pune's weather." });
    expect(started.status).toBe(202);
    const { runId: startedId } = JSON.parse(started.body) as { runId: string };
    expect(logOf(startedId)[0]?.owner).toEqual(ACME);
    expect((await ask("other", `/runs/${startedId}`)).status).toBe(404);
    // The owner's decision, answer and next message reach its runs (the answer is refused for what it is, not for whose).
    expect((await ask("own", "/api/runs/acme-waits/answers", { callId: "m1", answer: "yes" })).status).toBe(409);
    expect((await ask("own", "/api/runs/acme-waits/decisions", { callId: "m1", approved: false })).status).toBe(202);
    expect((await ask("own", "/api/runs/acme-done/messages", { message: "And Pune?" })).status).toBe(202);
    await Promise.all(streams);
    expect(heard.own).toContain("data: acme-waits");
    expect(heard.other).not.toContain("acme-");
    expect(heard.own).toContain(`data: ${forkId}`);
    expect(heard.other).toContain(": watching");
    expect(heard.other).not.toContain(forkId);
    expect(heard.other).not.toContain(startedId);
  });
});

/** A raw GET with exactly these headers (fetch sends no foreign Host): its status. */
function rawStatus(target: Studio, headers: Record<string, string>): Promise<number> {
  const { port } = new URL(target.base);
  return new Promise((resolve, reject) => {
    const asked = request(
      {
        host: "127.0.0.1",
        port,
        path: "/api/runs",
        headers: { cookie: `agentloop_studio=${target.token}`, ...headers },
      },
      (answer) => {
        answer.resume();
        resolve(answer.statusCode ?? 0);
      },
    );
    asked.on("error", reject);
    asked.end();
  });
}

describe("agentloop studio: nothing from another site, as the served doors", () => {
  it("refuses 403 another site's page (Origin, or Sec-Fetch-Site: cross-site) and a foreign Host, with the token or without authorize", async () => {
    for (const target of [plain, studio]) {
      const bearer: Record<string, string> = target === studio ? { authorization: `Bearer ${TOKENS.own}` } : {};
      expect(await rawStatus(target, { ...bearer, origin: "https://evil.example" })).toBe(403);
      expect(await rawStatus(target, { ...bearer, origin: "null" })).toBe(403);
      expect(await rawStatus(target, { ...bearer, "sec-fetch-site": "cross-site" })).toBe(403);
      expect(await rawStatus(target, { ...bearer, host: `evil.example:${new URL(target.base).port}` })).toBe(403);
      expect(await rawStatus(target, { ...bearer, origin: target.base })).toBe(200);
    }
    const post = await fetch(`${plain.base}/api/runs/acme-done/fork`, {
      method: "POST",
      headers: { "content-type": "text/plain", "x-agentloop-token": plain.token, origin: "https://evil.example" },
      body: JSON.stringify({ keep: 1 }),
    });
    expect(post.status).toBe(403);
  });
});

describe("agentloop studio --authorize on a Postgres store, whose list comes a page at a time", () => {
  const server = inject("postgresUrl");
  const schema = `cli_${randomBytes(5).toString("hex")}`;
  afterAll(async () => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  it("pages the principal's runs only, with their total; another tenant's run opens as an unknown one", async () => {
    const writer = new PostgresEventStore({ connectionString: server }, { schema });
    try {
      for (const runId of ["acme-1", "acme-2", "acme-3"]) await runFor(writer, runId, ACME, [final("Done.")]);
      await runFor(writer, "globex-1", GLOBEX, [final("Done.")]);
      await runFor(writer, "nobodys", undefined, [final("Done.")]);
    } finally {
      await writer.close();
    }
    const url = new URL(server);
    url.searchParams.set("schema", schema);
    const target = await startStudio(["--store", url.href, "--authorize", fixture("bearer-authorize.mjs")]);
    const pages = async (caller: Caller) => {
      const ids: string[] = [];
      let after = "";
      for (;;) {
        const answer = await ask(caller, `/api/runs?limit=2${after}`, undefined, target);
        const page = JSON.parse(answer.body) as { runs: { runId: string }[]; total: number; next: string | null };
        ids.push(...page.runs.map((run) => run.runId));
        if (page.next === null) return { ids, total: page.total };
        after = `&after=${encodeURIComponent(page.next)}`;
      }
    };
    expect(await pages("own")).toEqual({ ids: ["acme-3", "acme-2", "acme-1"], total: 3 });
    expect(await pages("other")).toEqual({ ids: ["globex-1"], total: 1 });
    expect((await ask("none", "/api/runs?limit=2", undefined, target)).status).toBe(401);
    const other = await ask("other", "/runs/acme-1", undefined, target);
    const unknown = await ask("own", "/runs/ghost", undefined, target);
    expect(other.status).toBe(404);
    expect(other.body).toBe(unknown.body.replaceAll("ghost", "acme-1"));
    expect((await ask("own", "/runs/acme-1", undefined, target)).status).toBe(200);
  });
});
