import { setTimeout as sleep } from "node:timers/promises";
import { parseFlags, VIEW_OPTIONS, wholeNumber } from "../args.js";
import {
  MemoryEventStore,
  type ModelWithLimits,
  makeWeatherRegistry,
  runAgent,
  scriptedModel,
  WEATHER_TASK,
  weatherScript,
} from "../core-api.js";
import { EXIT_CODE_HELP, exitCodeOf } from "../exit-codes.js";
import { type Io, writeLines, wroteHelp } from "../io.js";
import { palette, useColor } from "../output/colors.js";
import { formatTimeline } from "../output/timeline-text.js";
import { modelFromSpec, parseModelSpec } from "../setup/model-spec.js";
import { logPathOf, newRunId } from "../setup/run-ids.js";
import { openStore } from "../setup/stores.js";
import { runWithProgress } from "../trace/live-run.js";
import { RunTracer, traceRun } from "../trace/run-trace.js";

export const DEMO_HELP = `Usage: agentloop demo [--model openai:<name>|anthropic:<name>] [--store <path>] [--delay <ms>] [--no-color]

Runs the weather agent end to end: the tools get_weather and c_to_f, the task
"${WEATHER_TASK}". While it runs, a progress line shows the current state, the
step and the tokens spent (rewritten in place on a terminal, with the model's text
printed above it as it streams; plain lines otherwise); then the trace: every state
entered, every message, the result with steps and tokens.

Options:
  --model <provider:name>  a real model instead of the scripted one:
                           openai:<name>     needs OPENAI_API_KEY (OPENAI_BASE_URL for other servers)
                           anthropic:<name>  needs ANTHROPIC_API_KEY
  --store <path>           also keep the run's event log there (a directory, or a .db/.sqlite file)
  --delay <ms>             how long the scripted model takes per reply (default 400 on a terminal, so
                           that the progress line can be seen; 0 otherwise)
  --no-color               no ANSI colors (also NO_COLOR=1; colors are off when stdout is not a terminal)
  -h, --help               this help

${EXIT_CODE_HELP}`;

/** `agentloop demo`: the weather agent with progress, then its trace. */
export async function demoCommand(args: string[], io: Io): Promise<number> {
  const { values } = parseFlags("demo", args, {
    model: { type: "string" },
    store: { type: "string" },
    delay: { type: "string" },
    ...VIEW_OPTIONS,
  });
  if (wroteHelp(io, values.help, DEMO_HELP)) return 0;
  const spec = values.model === undefined ? null : parseModelSpec(values.model);
  const delay = wholeNumber("--delay", values.delay) ?? (io.stdout.isTTY ? TTY_DELAY_MS : 0);
  const model = spec === null ? slowly(scriptedModel(weatherScript()), delay) : await modelFromSpec(spec, io.env);
  const store = values.store === undefined ? new MemoryEventStore() : await openStore(values.store);
  const colors = palette(useColor(io.stdout, values["no-color"], io.env));
  const { registry, runs } = makeWeatherRegistry();
  const runId = newRunId("demo");
  const modelName = spec === null ? "a scripted model" : `${spec.provider}:${spec.name}`;
  writeLines(io.stdout, [colors.bold(`agentloop demo: the weather agent on ${modelName}`), ""]);
  const tracer = new RunTracer(runId, { keep: false });
  const result = await runWithProgress((hooks) => runAgent(WEATHER_TASK, model, registry, { ...hooks, store, runId }), {
    io,
    colors,
    tracer,
  });
  const label = values.store === undefined ? "(kept in memory)" : logPathOf(values.store, runId);
  const trace = traceRun(await store.read(runId), runId);
  writeLines(io.stdout, [
    "",
    ...formatTimeline(trace, colors, { runId, label }, io),
    `${colors.dim("tools run")} ${runs.map(([tool, arg]) => `${tool}(${String(arg)})`).join(", ")}`,
  ]);
  return exitCodeOf(result);
}

/** Milliseconds the scripted model takes per reply on a terminal, so that the live progress can be seen. */
const TTY_DELAY_MS = 400;

function slowly(model: ModelWithLimits, delay: number): ModelWithLimits {
  if (delay === 0) return model;
  return async (messages, tools, options) => {
    await sleep(delay, undefined, { signal: options.signal });
    return model(messages, tools, options);
  };
}
