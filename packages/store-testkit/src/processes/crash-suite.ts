import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { AgentResult, EventStore, Message } from "@agentloop/core";
import type { StoredEvent } from "@agentloop/core/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hangGuard } from "../hang-guard.js";
import { coreDir } from "./core-dir.js";

// Crash tests with real processes, for any durable store: fixtures/crash-child.mjs runs the weather
// agent on the BUILT core against the store under test, and dies by SIGKILL right after the log's
// Nth event, for every N; once more inside a slow tool, killed by this process. A new process
// resumes each run. The child logs every real tool execution and model call to files, so that the
// counts span processes. crash.test.ts runs the suite on the JSONL store; packages/sqlite on SQLite.

const CHILD = join(import.meta.dirname, "..", "..", "fixtures", "crash-child.mjs");
const CORE = coreDir();
const RUN_ID = "crash";

/** A store the parent opens to read what the children wrote; closed after each read when it can be. */
export type CrashStore = EventStore & { close?(): void | Promise<void> };

/** The run's log as the store keeps it, one string per event (a JSONL line, a SQLite row), for the byte-for-byte checks. */
export type RawLog = (storePath: string, runId: string) => string[] | Promise<string[]>;

/** A package whose dist/ the child loads: `dir` is its directory, holding src/ and dist/. */
export interface BuiltPackage {
  readonly name: string;
  readonly dir: string;
}

/** The store under test: its kind as the child knows it (`CRASH_STORE`), and how the parent reads it. */
export type CrashSuiteOptions = (
  | { readonly kind: "jsonl"; readonly rawLog?: RawLog }
  | { readonly kind: "sqlite"; readonly rawLog: RawLog }
  | {
      readonly kind: "postgres";
      readonly rawLog: RawLog;
      /** A store of its own for each scenario: `postgres://…?schema=<a new schema>`. */
      readonly storePath: (directory: string) => string;
    }
) & {
  /** Opens the store at `path`: the JSONL directory, the SQLite file, or the Postgres location. */
  readonly openStore: (path: string) => CrashStore;
  /** More environment for every child, e.g. `CRASH_SQLITE_MODULE`. */
  readonly childEnv?: Readonly<Record<string, string>>;
  /** Packages besides core whose dist/ the child loads: refused when missing or older than their sources. */
  readonly builtPackages?: readonly BuiltPackage[];
};

/** The child runs dist/: refuse to test a build that is missing or older than the sources. */
export function assertBuilt({ name, dir }: BuiltPackage): void {
  const where = `packages/${basename(dir)}`;
  const src = join(dir, "src");
  const dist = join(dir, "dist");
  const hint = `run \`pnpm --filter ${name} build\` before the crash tests`;
  if (!existsSync(join(dist, "index.js"))) throw new Error(`${where}/dist is missing: ${hint}`);
  for (const file of readdirSync(src, { recursive: true, encoding: "utf8" })) {
    if (!file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
    const built = join(dist, file.replace(/\.ts$/, ".js"));
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(src, file)).mtimeMs) {
      throw new Error(`${where}/dist/${file.replace(/\.ts$/, ".js")} is older than src/${file}: ${hint}`);
    }
  }
}

/** The JSONL store's file for the run, as lines. */
const jsonlLines: RawLog = (storePath, runId) => lines(join(storePath, `${runId}.jsonl`));

/** One crash scenario's files: a store (directory or file), the executions and model-call logs, the slow tool's marker. */
class Scenario {
  readonly dir = mkdtempSync(join(tmpdir(), "agentloop-crash-"));
  readonly storePath: string;
  readonly executions = join(this.dir, "executions.jsonl");
  readonly modelCalls = join(this.dir, "model-calls.jsonl");
  readonly marker = join(this.dir, "slow-started");
  readonly options: CrashSuiteOptions;

  constructor(options: CrashSuiteOptions, dirs: string[]) {
    this.options = options;
    dirs.push(this.dir);
    this.storePath =
      options.kind === "postgres"
        ? options.storePath(this.dir)
        : join(this.dir, options.kind === "jsonl" ? "store" : "runs.db");
  }

  env(vars: Record<string, string>): NodeJS.ProcessEnv {
    return {
      ...process.env,
      ...this.options.childEnv,
      CRASH_STORE: this.options.kind,
      CRASH_STORE_PATH: this.storePath,
      CRASH_RUN_ID: RUN_ID,
      CRASH_EXECUTIONS: this.executions,
      CRASH_MODEL_CALLS: this.modelCalls,
      CRASH_SLOW_MARKER: this.marker,
      ...vars,
    };
  }

  /** The log as stored (file lines, or rows as text) and as events (what the store reads). */
  async log(): Promise<{ lines: string[]; events: StoredEvent[] }> {
    const lines = await (this.options.rawLog ?? jsonlLines)(this.storePath, RUN_ID);
    const store = this.options.openStore(this.storePath);
    try {
      return { lines, events: await store.read(RUN_ID) };
    } finally {
      await store.close?.();
    }
  }

  /** `tool(args)` of every real execution, with the process it ran in. */
  ran(): { call: string; pid: number }[] {
    return lines(this.executions).map((line) => {
      const { tool, args, pid } = JSON.parse(line) as { tool: string; args: unknown; pid: number };
      return { call: `${tool}(${JSON.stringify(args)})`, pid };
    });
  }

  /** The step of every model call made, in any process. */
  asked(): number[] {
    return lines(this.modelCalls).map((line) => (JSON.parse(line) as { step: number }).step);
  }
}

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").slice(0, -1) : [];
}

interface Exit {
  readonly pid: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

function start(scenario: Scenario, vars: Record<string, string>): { child: ChildProcess; exit: Promise<Exit> } {
  const child = spawn(process.execPath, [CHILD], { env: scenario.env(vars), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exit = new Promise<Exit>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ pid: child.pid ?? -1, code, signal, stdout, stderr }));
  });
  return { child, exit };
}

const run = (scenario: Scenario, vars: Record<string, string>) => start(scenario, vars).exit;

/** The result a child printed; fails with its stderr when it printed none. */
function resultOf(exit: Exit): AgentResult {
  if (exit.code !== 0) throw new Error(`child exited with ${exit.code ?? exit.signal}: ${exit.stderr}`);
  return JSON.parse(exit.stdout.trim().split("\n").at(-1) ?? "") as AgentResult;
}

/** Runs `tasks` at most `limit` at a time. */
async function pool<T>(limit: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** The calls of the weather script, by their execution. */
const WEATHER_CALLS: Readonly<Record<string, string>> = {
  w1: 'get_weather({"city":"Pune"})',
  w2: 'c_to_f({"celsius":30})',
  w3: 'get_weather({"city":"Delhi"})',
  w4: 'c_to_f({"celsius":35})',
};
const WEATHER_EVENTS = 14;

interface BoundaryCrash {
  /** The log length after which each process died: [N] for one crash, [N1, N2] for a crash during resume too. */
  readonly kills: readonly number[];
  readonly exits: readonly Exit[];
  /** The log as it stood after each death. */
  readonly logsAtDeath: readonly { lines: string[]; events: StoredEvent[] }[];
  readonly result: AgentResult;
  /** The process that resumed the run to its end. */
  readonly resumer: Exit;
  readonly finalLog: { lines: string[]; events: StoredEvent[] };
  readonly ran: { call: string; pid: number }[];
  readonly asked: number[];
}

async function boundaryCrash(scenario: Scenario, kills: readonly number[]): Promise<BoundaryCrash> {
  const exits: Exit[] = [];
  const logsAtDeath: { lines: string[]; events: StoredEvent[] }[] = [];
  for (const [index, kill] of kills.entries()) {
    const mode = index === 0 ? "start" : "resume";
    exits.push(await run(scenario, { CRASH_MODE: mode, CRASH_SCRIPT: "weather", CRASH_KILL_AFTER: String(kill) }));
    logsAtDeath.push(await scenario.log());
  }
  const resumer = await run(scenario, { CRASH_MODE: "resume", CRASH_SCRIPT: "weather" });
  return {
    kills,
    exits,
    logsAtDeath,
    result: resultOf(resumer),
    resumer,
    finalLog: await scenario.log(),
    ran: scenario.ran(),
    asked: scenario.asked(),
  };
}

interface SlowCrash {
  readonly exit: Exit;
  readonly logAtDeath: StoredEvent[];
  readonly markerPid: string;
  readonly result: AgentResult;
  readonly ran: { call: string; pid: number }[];
  readonly asked: number[];
}

/** Starts the slow script, SIGKILLs the child from here once the slow tool has started, then resumes. */
async function slowCrash(scenario: Scenario, idempotent: boolean): Promise<SlowCrash> {
  const flag = idempotent ? "1" : "0";
  const { child, exit } = start(scenario, { CRASH_MODE: "start", CRASH_SCRIPT: "slow", CRASH_SLOW_IDEMPOTENT: flag });
  let exited = false;
  void exit.then(() => {
    exited = true;
  });
  // The child creates the marker, then writes its pid in it: a marker seen empty is not written yet.
  const markerWritten = () => existsSync(scenario.marker) && readFileSync(scenario.marker, "utf8") !== "";
  while (!markerWritten() && !exited) await sleep(10);
  child.kill("SIGKILL");
  const killed = await exit;
  const logAtDeath = (await scenario.log()).events;
  const markerPid = readFileSync(scenario.marker, "utf8");
  const resumed = await run(scenario, {
    CRASH_MODE: "resume",
    CRASH_SCRIPT: "slow",
    CRASH_SLOW_IDEMPOTENT: flag,
    CRASH_SLOW_MS: "20",
  });
  return {
    exit: killed,
    logAtDeath,
    markerPid,
    result: resultOf(resumed),
    ran: scenario.ran(),
    asked: scenario.asked(),
  };
}

const toolContent = (messages: readonly Message[], callId: string) =>
  messages.find((message) => message.role === "tool" && message.toolCallId === callId)?.content;
const finishedCalls = (events: readonly StoredEvent[]) =>
  new Set(events.flatMap((event) => (event.type === "tool.finished" ? [event.callId] : [])));
/** The calls a log shows started and not finished: the ones a death cut. */
const startedCalls = (events: readonly StoredEvent[]) => {
  const finished = finishedCalls(events);
  return new Set(
    events.flatMap((event) => (event.type === "tool.started" && !finished.has(event.callId) ? [event.callId] : [])),
  );
};

/**
 * The crash tests on one durable store: `label` names it in the suite's title. The child loads
 * core's dist/ (and the store's, through `childEnv`): every package in `builtPackages` and core must
 * be built from its current sources.
 */
export function describeCrashTests(label: string, options: CrashSuiteOptions): void {
  describe(`crash tests: SIGKILLed processes, resumed by new ones (${label})`, () => {
    const dirs: string[] = [];
    afterAll(() => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });
    const scenario = () => new Scenario(options, dirs);

    let weather: { result: AgentResult; events: StoredEvent[]; ran: string[]; asked: number[] };
    let slowReference: AgentResult;
    let crashes: BoundaryCrash[];
    let slow: { idempotent: SlowCrash; plain: SlowCrash };

    beforeAll(async () => {
      for (const built of [{ name: "@agentloop/core", dir: CORE }, ...(options.builtPackages ?? [])]) {
        assertBuilt(built);
      }
      const reference = scenario();
      const slowScenario = scenario();
      const [weatherExit, slowExit, idempotent, plain] = await Promise.all([
        run(reference, { CRASH_MODE: "start", CRASH_SCRIPT: "weather" }),
        run(slowScenario, { CRASH_MODE: "start", CRASH_SCRIPT: "slow", CRASH_SLOW_MS: "20" }),
        slowCrash(scenario(), true),
        slowCrash(scenario(), false),
      ]);
      weather = {
        result: resultOf(weatherExit),
        events: (await reference.log()).events,
        ran: reference.ran().map(({ call }) => call),
        asked: reference.asked(),
      };
      slowReference = resultOf(slowExit);
      slow = { idempotent, plain };
      const kills: number[][] = Array.from({ length: WEATHER_EVENTS }, (_, index) => [index + 1]);
      kills.push([3, 8], [6, 13], [1, 2]);
      crashes = await pool(
        4,
        kills.map((k) => () => boundaryCrash(scenario(), k)),
      );
    }, hangGuard(120_000));

    it("the never-interrupted run: 4 model calls, 4 tool executions, 14 events", () => {
      expect(weather.result.status).toBe("done");
      expect(weather.result.answer).toBe("Pune is 86 F, Delhi 95 F.");
      expect(weather.result.steps).toBe(4);
      expect(weather.events).toHaveLength(WEATHER_EVENTS);
      expect(weather.ran).toEqual(Object.values(WEATHER_CALLS));
      expect(weather.asked).toEqual([0, 1, 2, 3]);
    });

    it("every process died by SIGKILL with exactly the log length it was told", () => {
      expect(crashes).toHaveLength(WEATHER_EVENTS + 3);
      for (const crash of crashes) {
        for (const [index, exit] of crash.exits.entries()) {
          expect(exit.signal, `kill after ${crash.kills[index]}: ${exit.stderr}`).toBe("SIGKILL");
          expect(crash.logsAtDeath[index]?.events).toHaveLength(crash.kills[index] as number);
        }
      }
    });

    it("each resumed run ends with the messages and result of the never-interrupted run", () => {
      const { runId: _runId, ...expected } = weather.result;
      for (const crash of crashes) {
        const { runId, ...result } = crash.result;
        expect(result, `killed after ${crash.kills.join(", then ")} events`).toEqual(expected);
        expect(runId).toBe(RUN_ID);
      }
    });

    it("no call whose tool.finished was logged ran again: every call ran, and ran again only if a death cut it", () => {
      for (const crash of crashes) {
        const at = `killed after ${crash.kills.join(", then ")} events`;
        expect(new Set(crash.ran.map(({ call }) => call)), at).toEqual(new Set(Object.values(WEATHER_CALLS)));
        // The calls of one reply run at once: a call may have run when the process died logging its
        // sibling's start. Such a call was started and not finished in the dead log: it runs again
        // only because the fixture's fast tools are idempotent.
        const cut = new Set(
          crash.logsAtDeath.flatMap((log) => [...startedCalls(log.events)].map((id) => WEATHER_CALLS[id])),
        );
        const counts = new Map<string, number>();
        for (const { call } of crash.ran) counts.set(call, (counts.get(call) ?? 0) + 1);
        for (const [call, count] of counts)
          if (count > 1) expect(cut.has(call), `${call} ran ${count} times; ${at}`).toBe(true);
        // And specifically: no process after a death ran a call that the dead one's log holds as finished.
        const pids = [...crash.exits, crash.resumer].map((exit) => exit.pid);
        for (const [index, log] of crash.logsAtDeath.entries()) {
          const later = new Set(pids.slice(index + 1));
          const finished = [...finishedCalls(log.events)].map((id) => WEATHER_CALLS[id]);
          const rerun = crash.ran.filter(({ call, pid }) => later.has(pid) && finished.includes(call));
          expect(rerun, at).toEqual([]);
        }
      }
    });

    it("no logged model reply was asked for again: one model call per step, across processes", () => {
      for (const crash of crashes) {
        expect(crash.asked, `killed after ${crash.kills.join(", then ")} events`).toEqual([0, 1, 2, 3]);
      }
    });

    it("resume keeps every logged line byte for byte and completes the log with run.finished", () => {
      for (const crash of crashes) {
        const at = `killed after ${crash.kills.join(", then ")} events`;
        for (const log of crash.logsAtDeath) {
          expect(crash.finalLog.lines.slice(0, log.lines.length), at).toEqual(log.lines);
        }
        expect(
          crash.finalLog.events.map((event) => event.type),
          at,
        ).toEqual(weather.events.map((event) => event.type));
      }
    });

    it("an idempotent slow tool killed while it ran runs again in the new process, and nothing else does", () => {
      const { exit, logAtDeath, markerPid, result, ran, asked } = slow.idempotent;
      expect(exit.signal).toBe("SIGKILL");
      expect(logAtDeath.at(-1)).toMatchObject({ type: "tool.started", callId: "s2", name: "file_report" });
      expect(result.messages).toEqual(slowReference.messages);
      expect(result.status).toBe("done");
      const reports = ran.filter(({ call }) => call.startsWith("file_report"));
      expect(reports).toHaveLength(2);
      expect(String(reports[0]?.pid)).toBe(markerPid);
      expect(reports[1]?.pid).not.toBe(reports[0]?.pid);
      expect(ran.map(({ call }) => call)).toEqual([
        'get_weather({"city":"Pune"})',
        'file_report({"city":"Pune"})',
        'file_report({"city":"Pune"})',
        'c_to_f({"celsius":30})',
      ]);
      expect(asked).toEqual([0, 1, 2, 3]);
    });

    it("a non-idempotent slow tool killed while it ran is not run again: its observation is the lost-result ERROR", () => {
      const { exit, logAtDeath, result, ran, asked } = slow.plain;
      expect(exit.signal).toBe("SIGKILL");
      expect(logAtDeath.at(-1)).toMatchObject({ type: "tool.started", callId: "s2", name: "file_report" });
      expect(toolContent(result.messages, "s2")).toMatch(/^ERROR: the result of file_report was lost/);
      expect(ran.map(({ call }) => call)).toEqual([
        'get_weather({"city":"Pune"})',
        'file_report({"city":"Pune"})',
        'c_to_f({"celsius":30})',
      ]);
      expect(asked).toEqual([0, 1, 2, 3]);
      const blank = (messages: readonly Message[]) =>
        messages.map((message) =>
          message.role === "tool" && message.toolCallId === "s2"
            ? { role: "tool", toolCallId: "s2", name: message.name, content: "" }
            : message,
        );
      expect(blank(result.messages)).toEqual(blank(slowReference.messages));
    });
  });
}
