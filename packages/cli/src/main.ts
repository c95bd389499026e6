#!/usr/bin/env node
import { runCli } from "./cli.js";
import { programName } from "./output/program-name.js";

// Hints print commands as the user started this one, so that they can be pasted as they are.
const program = programName({ script: process.argv[1] ?? "agentloop", cwd: process.cwd(), env: process.env });

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
