#!/usr/bin/env node
// Compares the chat handler of a git ref of @agentloop/ai-sdk with this tree's, side by side in one
// process: the first chunk a client gets after its POST (over node:http on 127.0.0.1, 20 streamed
// deltas) and the CPU time of a whole one-reply request (the handler called in process), the two
// interleaved round by round, the order swapped each round, so that the machine's drift hits both.
//
//   node scripts/compare-serving.mjs <git-ref> [--rounds N]      (after pnpm run build)
//
// The ref's packages/ai-sdk/src is compiled into packages/ai-sdk/.compare/<ref>/ (ignored by git),
// beside the package's node_modules, so both handlers run on this tree's @agentloop/core.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const root = resolve(import.meta.dirname, "..");
const args = process.argv.slice(process.argv[2] === "--" ? 3 : 2);
const ref = args.find((arg, i) => !arg.startsWith("--") && args[i - 1] !== "--rounds") ?? "HEAD";
const rounds = Number(args[args.indexOf("--rounds") + 1] ?? 6) || 6;
const out = join(root, "packages/ai-sdk/.compare", ref.replaceAll("/", "_"));
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
execFileSync("sh", ["-c", `git archive ${ref} packages/ai-sdk/src | tar -x -C ${out}`], { cwd: root });
const tsc = join(root, "node_modules/.bin/tsc");
const src = join(out, "packages/ai-sdk/src");
execFileSync(
  tsc,
  [
    ...["--outDir", join(out, "dist"), "--rootDir", src, "--module", "nodenext"],
    ...["--target", "es2022", "--skipLibCheck", "--noCheck"],
    ...["--moduleResolution", "nodenext"],
    `${src}/index.ts`,
  ],
  {
    cwd: join(root, "packages/ai-sdk"),
  },
);
const aiSdk = pathToFileURL(join(root, "packages/ai-sdk/dist/index.js")).href;
const core = pathToFileURL(join(root, "packages/core/dist/index.js")).href;
const { chatHandler: now } = await import(aiSdk);
const { chatHandler: before } = await import(pathToFileURL(join(out, "dist/index.js")).href);
const { MemoryEventStore, ToolRegistry } = await import(core);

const streamingModel = (deltas) => async (_messages, _tools, options) => {
  for (let i = 0; i < deltas; i++) {
    options?.onDelta?.({ type: "text-delta", text: "w " });
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { content: "w ".repeat(deltas), toolCalls: [] };
};
const quantile = (values, q) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const body = (i) =>
  JSON.stringify({ id: `c${i}`, messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "Hi" }] }] });

async function serve(make) {
  const handler = make({ model: streamingModel(20), registry: new ToolRegistry(), store: new MemoryEventStore() });
  const server = createServer(async (req, res) => {
    const parts = [];
    for await (const part of req) parts.push(part);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: "POST",
      headers: { host: req.headers.host ?? "127.0.0.1" },
      body: new Uint8Array(Buffer.concat(parts)),
    });
    const response = await handler(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    for await (const chunk of response.body ?? []) res.write(chunk);
    res.end();
  });
  // The rounds in between leave a connection idle longer than Node's default 5 s.
  server.keepAliveTimeout = 600_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}/api/chat` };
}
async function firstChunks(url, n, offset) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const reader = (await fetch(url, { method: "POST", body: body(offset + i) })).body.getReader();
    await reader.read();
    times.push(performance.now() - start);
    while (!(await reader.read()).done) {}
  }
  return times;
}
async function cpuPerRequest(make, n) {
  const model = async () => ({ content: "Hello.", toolCalls: [] });
  const handler = make({ model, registry: new ToolRegistry(), store: new MemoryEventStore() });
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    await (await handler(new Request("http://127.0.0.1/api/chat", { method: "POST", body: body(i) }))).text();
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}
const servers = { before: await serve(before), now: await serve(now) };
const makers = { before, now };
const first = { before: [], now: [] };
const cpu = { before: [], now: [] };
for (let round = 0; round < rounds; round++) {
  for (const which of round % 2 === 0 ? ["before", "now"] : ["now", "before"]) {
    first[which].push(...(await firstChunks(servers[which].url, 100, round * 1000)));
    cpu[which].push(await cpuPerRequest(makers[which], 300));
  }
}
for (const { server } of Object.values(servers)) server.close();
console.log(`| | ${ref} | this tree |\n| --- | --- | --- |`);
for (const q of [0.5, 0.9]) {
  console.log(
    `| first chunk, p${q * 100} | ${quantile(first.before, q).toFixed(2)} ms | ${quantile(first.now, q).toFixed(2)} ms |`,
  );
}
console.log(
  `| CPU per request, median of ${rounds} rounds | ${quantile(cpu.before, 0.5).toFixed(0)} µs | ${quantile(cpu.now, 0.5).toFixed(0)} µs |`,
);
