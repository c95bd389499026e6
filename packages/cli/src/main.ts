#!/usr/bin/env node
import { basename, isAbsolute, relative } from "node:path";
import { runCli } from "./cli.js";
import { shellQuote } from "./output/hints.js";

// Hints print commands as the user started this one, so that they can be pasted as they are.
const script = process.argv[1] ?? "agentloop";
const near = relative(process.cwd(), script);
const shown = near.startsWith("..") || isAbsolute(near) ? script : near;
const program = basename(script) === "agentloop" ? "agentloop" : `node ${shellQuote(shown)}`;

// A reader that stops early (`agentloop show run.jsonl | head`) closes the pipe: stop quietly, as other tools do.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  program,
});
