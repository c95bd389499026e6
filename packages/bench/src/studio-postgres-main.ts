import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { PostgresEventStore } from "@agentloop/postgres";
import { startTestPostgres } from "@agentloop/store-testkit/servers";
import pg from "pg";
import { THIS_CLI } from "./metrics/studio.js";
import { machine, title } from "./report.js";

// The studio on a Postgres store of 100,000 runs (`pnpm bench:studio-postgres [--tiny]`): how long
// `agentloop studio` takes to print its URL, and to answer the list's first request (the newest 200
// runs, what the list page asks for) and the next page, first and again. Each run is a log of one
// event (run.started, schema 1) written straight into the table, so that filling the store takes
// seconds; the studio reads and folds the runs of the page it is asked for, whatever their length.
const tiny = process.argv.includes("--tiny");
const RUNS = tiny ? 2_000 : 100_000;
const BATCH = 5_000;
const progress = (line: string) => process.stderr.write(`${line}\n`);

const server = await startTestPostgres();
const schema = `studio_bench_${process.pid}`;
const url = new URL(server.url);
url.searchParams.set("schema", schema);
const out: string[] = [];
try {
  const store = new PostgresEventStore({ connectionString: server.url }, { schema });
  await store.list(); // the tables exist
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  progress(`bench: writing ${RUNS} runs...`);
  for (let first = 0; first < RUNS; first += BATCH) {
    const ids: string[] = [];
    const ats: string[] = [];
    const datas: string[] = [];
    for (let index = first; index < Math.min(first + BATCH, RUNS); index++) {
      const at = new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString();
      const settings = { task: `Task number ${index}`, maxSteps: 8, tokenBudget: 4000, tools: [] };
      ids.push(`run-${String(index).padStart(6, "0")}`);
      ats.push(at);
      datas.push(JSON.stringify({ type: "run.started", schemaVersion: 1, settings, seq: 0, at }));
    }
    await client.query(
      `INSERT INTO ${schema}.events (run_id, seq, type, at, data)
       SELECT r, 0, 'run.started', a, d FROM unnest($1::text[], $2::text[], $3::text[]) AS t(r, a, d)`,
      [ids, ats, datas],
    );
  }
  await client.query(`ANALYZE ${schema}.events`);
  await client.end();
  const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
    const start = performance.now();
    const value = await work();
    return [value, performance.now() - start];
  };
  const [, pageMs] = await timed(() => store.listPage({ limit: 200 }));
  await store.close();

  const started = performance.now();
  const child = spawn(process.execPath, [THIS_CLI, "studio", "--store", url.href, "--port", "0"], { stdio: "pipe" });
  const address = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.on("close", (code) => reject(new Error(`studio exited with ${code}`)));
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const found = /agentloop studio: (\S+)/.exec(text)?.[1];
      if (found !== undefined) resolve(found);
    });
  });
  const startMs = performance.now() - started;
  const token = new URL(address).searchParams.get("token") ?? "";
  const base = new URL(address).origin;
  const get = (path: string) => fetch(base + path, { headers: { cookie: `agentloop_studio=${token}` } });
  try {
    const list = async (after: string | null) => {
      const query = after === null ? "" : `&after=${encodeURIComponent(after)}`;
      return (await (await get(`/api/runs?limit=200${query}`)).json()) as {
        runs: unknown[];
        total: number;
        next: string | null;
      };
    };
    const [first, firstMs] = await timed(() => list(null));
    const [, nextMs] = await timed(() => list(first.next));
    const again: number[] = [];
    for (let round = 0; round < 5; round++) again.push((await timed(() => list(null)))[1]);
    const [, htmlMs] = await timed(async () => (await get("/")).text());
    const median = [...again].sort((a, b) => a - b)[2] ?? Number.NaN;
    out.push(title("studio on a Postgres store", tiny), "");
    out.push(`${machine()}; load average ${loadavg()[0]?.toFixed(1)}.`, "");
    out.push("| measure | ms |", "| --- | ---: |");
    out.push(`| runs in the store | ${first.total} |`);
    out.push(`| \`listPage({ limit: 200 })\` on the store | ${pageMs.toFixed(0)} |`);
    out.push(`| \`agentloop studio\` started to its URL printed | ${startMs.toFixed(0)} |`);
    out.push(`| the list page's HTML | ${htmlMs.toFixed(0)} |`);
    out.push(`| the list's first request (newest 200 runs), first | ${firstMs.toFixed(0)} |`);
    out.push(`| the list's next page, first | ${nextMs.toFixed(0)} |`);
    out.push(`| the list's first request again (median of 5) | ${median.toFixed(0)} |`);
  } finally {
    child.kill("SIGTERM");
  }
} finally {
  await server.stop();
}
process.stdout.write(`${out.join("\n")}\n`);
