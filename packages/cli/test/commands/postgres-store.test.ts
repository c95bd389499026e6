import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PostgresEventStore } from "@agentloop/postgres";
import { sampleLog } from "@agentloop/store-testkit";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { EXIT_CODES } from "../../src/exit-codes.js";
import { fixture, tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";
import { type Studio, startStudio } from "../studio.js";

// Every --store takes postgres://…: the project's server (test/global-setup.ts), a schema per test.

const SERVER = inject("postgresUrl");
const tools = fixture("tools.mjs");
const dir = tempDir();
const schemas: string[] = [];

/** A store URL on a new schema of the server. */
function newStore(): string {
  const schema = `cli_${randomBytes(5).toString("hex")}`;
  schemas.push(schema);
  const url = new URL(SERVER);
  url.searchParams.set("schema", schema);
  return url.href;
}

afterAll(async () => {
  const client = new pg.Client({ connectionString: SERVER });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

const password = new URL(SERVER).password;
const hidden = (text: string) => (password === "" ? text : text.replaceAll(password, "<password>"));

describe("agentloop on a Postgres store (--store postgres://…)", () => {
  it("run, list, show, resume and chat: a run started in one command goes on in the next, from the server", async () => {
    const store = newStore();
    const run = await agentloop([
      "run",
      "--tools",
      tools,
      "--store",
      store,
      "--run-id",
      "paused",
      "--script",
      fixture("approval-script.json"),
      "Weather?",
    ]);
    expect(run.stdout).toContain("result   awaiting_approval");
    // The password is never printed: the log is named by the URL without it.
    expect(hidden(run.stdout)).not.toContain("<password>");
    expect(run.stdout).toContain(`postgres://postgres:***@127.0.0.1:${new URL(SERVER).port}/postgres?schema=`);
    const listed = await agentloop(["list", "--store", store, "--json"]);
    expect(listed.code).toBe(0);
    const [row] = JSON.parse(listed.stdout) as { runId: string; status: string; log: string }[];
    expect(row).toMatchObject({ runId: "paused", status: "awaiting_approval" });
    expect(row?.log).toMatch(/#paused$/);
    const shown = await agentloop(["show", `${store}#paused`, "--no-color"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("5 events · every event's hash checked");
    const resumed = await agentloop([
      "resume",
      `${store}#paused`,
      "--tools",
      tools,
      "--script",
      fixture("approval-rest.json"),
      "--approve",
      "m1",
    ]);
    expect(resumed.stderr).toBe("");
    expect(resumed.stdout).toContain("result   done");
    const conversation = join(dir, "next-turn.json");
    writeFileSync(conversation, JSON.stringify([{ content: "Still 35 C.", toolCalls: [] }]));
    const chat = await agentloop(["chat", `${store}#paused`, "--tools", tools, "--script", conversation, "And now?"]);
    expect(chat.code).toBe(EXIT_CODES.done);
    expect(chat.stdout).toContain("answer   Still 35 C.");
    const reader = new PostgresEventStore(
      { connectionString: SERVER },
      { schema: new URL(store).searchParams.get("schema") ?? "" },
    );
    try {
      const events = await reader.read("paused");
      expect(events.at(-1)).toMatchObject({ type: "run.finished", outcome: { status: "done", answer: "Still 35 C." } });
    } finally {
      await reader.close();
    }
  });

  it("names a log by #<runId>, or the only run; refuses a store URL it cannot use in one line", async () => {
    const store = newStore();
    expect((await agentloop(["list", "--store", store])).stdout).toContain("no runs in postgres://postgres:***@");
    const none = await agentloop(["show", store]);
    expect(none.code).toBe(EXIT_CODES.usage);
    expect(none.stderr).toMatch(
      /^agentloop: store 'postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres\?schema=cli_\w+' holds no runs\n$/,
    );
    const bad = new URL(store);
    bad.searchParams.set("schema", "Not A Schema");
    const refused = await agentloop(["list", "--store", bad.href]);
    expect(refused.code).toBe(EXIT_CODES.usage);
    expect(refused.stderr).toContain("cannot be an event store's schema");
  });
});

describe("agentloop studio on a Postgres store: the list comes a page at a time", () => {
  let studio: Studio;
  const RUNS = 450;
  const store = newStore();

  it("gives every run once, newest first, across pages, with the total; a run no page showed opens by its id", async () => {
    const schema = new URL(store).searchParams.get("schema") ?? "";
    const writer = new PostgresEventStore({ connectionString: SERVER }, { schema });
    const [started, ...rest] = sampleLog();
    if (started === undefined) throw new Error("sample too short");
    const ids = Array.from({ length: RUNS }, (_, index) => `run-${String(index).padStart(4, "0")}`);
    const write = async (runId: string, index: number) => {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString();
      await writer.append(runId, { ...started, at });
      // Every tenth run finished, the rest waiting at their start.
      if (index % 10 === 0) for (const event of rest) await writer.append(runId, event);
    };
    // Fifty runs at a time: their appends share the store's commits.
    for (let first = 0; first < RUNS; first += 50) {
      await Promise.all(ids.slice(first, first + 50).map((runId, offset) => write(runId, first + offset)));
    }
    await writer.close();
    studio = await startStudio(["--store", store]);
    // A run no page has shown yet opens by its id: the watcher reads it then.
    const oldest = await studio.get("/runs/run-0001");
    expect(oldest.status, await oldest.clone().text()).toBe(200);
    expect(await oldest.text()).toContain("How hot is Pune?");
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const query: string = after === null ? "" : `&after=${encodeURIComponent(after)}`;
      const page = (await (await studio.get(`/api/runs?limit=200${query}`)).json()) as {
        runs: { runId: string; status: string }[];
        total: number;
        next: string | null;
      };
      expect(page.total).toBe(RUNS);
      expect(page.runs.length).toBe(Math.min(200, RUNS - seen.length));
      seen.push(...page.runs.map((run) => run.runId));
      after = page.next;
    } while (after !== null);
    expect(seen).toEqual([...ids].reverse());
    expect((await studio.get("/api/runs?limit=0")).status).toBe(400);
  });
});
