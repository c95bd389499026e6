import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentResult } from "../../src/index.js";
import { JsonlEventStore } from "../../src/stores/jsonl-store.js";

// A workflow persisted at every point of its agent's run, its process killed there, and restored
// in a fresh process: fixtures/workflow-child.mjs runs an order workflow on the BUILT core (build
// first) with a JSONL store, and counts real sends and model calls in files across processes.

const CHILD = join(import.meta.dirname, "..", "fixtures", "workflow-child.mjs");
const CORE = join(import.meta.dirname, "..", "..");
const dirs: string[] = [];
beforeAll(() => {
  // The child runs dist/: refuse a build older than the sources it tests.
  for (const file of [
    "run/api/agent-actor",
    "run/api/agent-actor-run",
    "data/agent-input",
    "decide/agent-view",
    "run/api/approval-desk",
  ]) {
    const built = join(CORE, "dist", `${file}.js`);
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(CORE, "src", `${file}.ts`)).mtimeMs) {
      throw new Error(
        `packages/core/dist/${file}.js is missing or older than its source: run \`pnpm run build\` first`,
      );
    }
  }
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Ending {
  readonly value: unknown;
  readonly context: { readonly proposed: string[]; readonly result: AgentResult | null; readonly error: string | null };
}

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

class Workflow {
  readonly dir = mkdtempSync(join(tmpdir(), "agentloop-workflow-"));
  readonly files = {
    WF_STORE: join(this.dir, "store"),
    WF_SNAPSHOT: join(this.dir, "workflow.json"),
    WF_SENDS: join(this.dir, "sends.jsonl"),
    WF_MODEL_CALLS: join(this.dir, "model-calls.jsonl"),
  };

  constructor() {
    dirs.push(this.dir);
  }

  run(vars: Record<string, string>): Promise<Exit> {
    const child = spawn(process.execPath, [CHILD], {
      env: { ...process.env, ...this.files, ...vars },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    return new Promise((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
  }

  count(file: "WF_SENDS" | "WF_MODEL_CALLS"): number {
    const path = this.files[file];
    return existsSync(path) ? readFileSync(path, "utf8").split("\n").length - 1 : 0;
  }

  async log(): Promise<string[]> {
    return (await new JsonlEventStore(this.files.WF_STORE).read("order-42")).map((event) => event.type);
  }
}

function endingOf(exit: Exit): Ending {
  const line = exit.stdout.trim().split("\n").at(-1) ?? "";
  if (exit.code !== 0 || line === "") throw new Error(`the workflow process failed (${exit.code}): ${exit.stderr}`);
  return JSON.parse(line) as Ending;
}

/** Each point, and the model calls made over both processes: a call cut off before its reply was logged is made again, no other. */
const POINTS = [
  ["started", 2],
  ["model-1", 3],
  ["reviewing", 2],
  ["tool", 2],
  ["model-2", 3],
  ["agent-done", 2],
  ["shipped", 2],
] as const;

describe("a workflow restored in a fresh process, at every point of its agent's run", () => {
  let uninterrupted: Ending;

  it("uninterrupted, ships with one send and two model calls", async () => {
    const workflow = new Workflow();
    uninterrupted = endingOf(await workflow.run({ WF_MODE: "start" }));
    expect(uninterrupted.value).toBe("shipped");
    expect(uninterrupted.context.result).toMatchObject({
      status: "done",
      answer: "Emailed Ana that order 42 shipped.",
    });
    expect(workflow.count("WF_SENDS")).toBe(1);
    expect(workflow.count("WF_MODEL_CALLS")).toBe(2);
  });

  for (const [point, modelCalls] of POINTS) {
    it(`killed at ${point}, ends where the uninterrupted one does, the email sent once`, async () => {
      const workflow = new Workflow();
      const killed = await workflow.run({ WF_MODE: "start", WF_KILL: point });
      expect(killed.signal, killed.stderr).toBe("SIGKILL");
      const ending = endingOf(await workflow.run({ WF_MODE: "restore" }));

      expect(ending.value).toBe(uninterrupted.value);
      expect(ending.context.proposed).toEqual(uninterrupted.context.proposed);
      expect(workflow.count("WF_SENDS")).toBe(1);
      expect(workflow.count("WF_MODEL_CALLS")).toBe(modelCalls);
      const { result } = ending.context;
      expect(result?.status).toBe("done");
      expect(result?.answer).toBe(uninterrupted.context.result?.answer);
      const tool = result?.messages.find((message) => message.role === "tool");
      if (point === "tool") {
        // The send was cut off: it is not sent again, and the model is told its result was lost.
        expect(tool?.content).toMatch(/^ERROR: the result of send_email was lost/);
      } else {
        expect(result?.messages).toEqual(uninterrupted.context.result?.messages);
      }
      // Nothing logged is done again: one start, one reply per step, one decision, one end.
      const log = await workflow.log();
      expect(log.filter((type) => type === "run.started")).toHaveLength(1);
      expect(log.filter((type) => type === "model.replied")).toHaveLength(2);
      expect(log.filter((type) => type === "approval.decided")).toHaveLength(1);
      expect(log.at(-1)).toBe("run.finished");
    });
  }
});
