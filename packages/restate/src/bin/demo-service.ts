#!/usr/bin/env node
import { parseArgs } from "node:util";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { startDemoService } from "../demo/demo-service.js";
import { DEMO_TASK } from "../demo/weather-agent.js";

const HELP = `Usage: agentloop-restate-demo [--port <n>] [--register <admin url>] [--store <dir>]

Serves the demo agent as the Restate workflow "agent" on 127.0.0.1: the tools get_weather and
c_to_f, email_report (which runs only after a decision), and a scripted model. Start a Restate
server first (npx restate-server); then submit runs through its ingress (port 8080 by default).

Options:
  --port <n>              where the service listens (default 9080)
  --register <admin url>  register the service with that Restate server once it listens
                          (e.g. http://127.0.0.1:9070)
  --store <dir>           also mirror each run's event log into a JSONL store there
  -h, --help              this help
`;

/** Exits with a usage error: one line on stderr, pointing at the help, never a stack. */
function usage(message: string): never {
  process.stderr.write(`agentloop-restate-demo: ${message}; see 'agentloop-restate-demo --help'\n`);
  process.exit(2);
}

// `pnpm demo -- --register <url>` passes the `--` on (pnpm 12, npm): a leading one is dropped.
const args = process.argv.slice(2);
const parsed = (() => {
  try {
    return parseArgs({
      args: args[0] === "--" ? args.slice(1) : args,
      options: {
        port: { type: "string", default: "9080" },
        register: { type: "string" },
        store: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    return usage((error instanceof Error ? error.message : String(error)).split(/\.\s|\n/)[0] ?? "bad arguments");
  }
})();
const { values } = parsed;
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const port = Number(values.port);
if (!Number.isSafeInteger(port) || port < 0 || port > 65_535) {
  usage(`--port must be a port number, got '${values.port}'`);
}
try {
  const store = values.store === undefined ? undefined : new JsonlEventStore(values.store);
  const service = await startDemoService({ port, register: values.register, store });
  const ingress = "http://127.0.0.1:8080";
  process.stdout.write(
    [
      `agentloop-restate-demo: the demo agent listens at ${service.url}${values.register ? `, registered with ${values.register}` : ""}`,
      "Submit a run, ask where it stands, decide, and wait for its result:",
      `  curl -s ${ingress}/agent/demo-1/run/send -H 'content-type: application/json' -d '${JSON.stringify({ task: DEMO_TASK })}'`,
      `  curl -s ${ingress}/agent/demo-1/status`,
      `  curl -s ${ingress}/agent/demo-1/decide -H 'content-type: application/json' -d '{"callId":"c3","approved":true}'`,
      `  curl -s ${ingress}/restate/workflow/agent/demo-1/attach`,
      "",
    ].join("\n"),
  );
  const stop = () => service.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
} catch (error) {
  process.stderr.write(`agentloop-restate-demo: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
