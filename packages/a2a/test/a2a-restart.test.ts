import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetTaskRequest, ListTasksRequest, type Task, TaskState } from "@a2a-js/sdk";
import { afterAll, describe, expect, it } from "vitest";
import { clientOf, userText } from "./a2a-served.js";

// kill -9 between SendMessage and GetTask: fixtures/a2a-server-child.mjs serves the agent (on the
// BUILT packages) over a JSONL store; the test kills it with SIGKILL and starts a fresh one on the
// same store, which answers GetTask and ListTasks from the log and takes the tasks further.

const CHILD = join(import.meta.dirname, "fixtures", "a2a-server-child.mjs");
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts a server process on the store in `dir`; resolves with its URL once it listens. */
function startServer(dir: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CHILD, dir], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once("exit", () => reject(new Error(`the server exited: ${stderr}`)));
  });
  const killed = () =>
    new Promise<NodeJS.Signals | null>((resolve) => {
      child.once("exit", (_code, signal) => resolve(signal));
      child.kill("SIGKILL");
    });
  return { url, killed };
}

describe("a task outlives the server's process (JSONL store, real processes, SIGKILL)", () => {
  it("a fresh server answers GetTask and ListTasks from the log, and takes each task further", async () => {
    expect(existsSync(join(import.meta.dirname, "..", "dist", "index.js")), "build @agentloop/a2a first").toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "a2a-restart-"));
    dirs.push(dir);
    const first = startServer(dir, { SLOW: "hang" });
    const before = await clientOf(await first.url);
    const answered = (await before.sendMessage(userText("Hi."))) as Task;
    const paused = (await before.sendMessage(userText("Email ana."))) as Task;
    const cut = (await before.sendMessage({
      ...userText("Be slow."),
      configuration: { returnImmediately: true },
    } as never)) as Task;
    expect([answered, paused, cut].map((task) => task.status?.state)).toEqual([
      TaskState.TASK_STATE_COMPLETED,
      TaskState.TASK_STATE_INPUT_REQUIRED,
      TaskState.TASK_STATE_WORKING,
    ]);
    expect(await first.killed()).toBe("SIGKILL");

    const second = startServer(dir);
    const after = await clientOf(await second.url);
    const read = async (id: string) => after.getTask(GetTaskRequest.fromJSON({ id }));
    expect(await read(answered.id)).toEqual(answered);
    const waiting = await read(paused.id);
    expect(waiting.status).toEqual(paused.status);
    // Cut off mid-turn by the kill: still known, still working, until a message on it finishes it.
    expect((await read(cut.id)).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const listed = await after.listTasks(ListTasksRequest.fromJSON({}));
    expect(listed.tasks.map((task) => task.id).sort()).toEqual([answered.id, cut.id, paused.id].sort());

    const approved = (await after.sendMessage(userText("yes", { taskId: paused.id }))) as Task;
    expect(approved.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(approved.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "Sent to ana." });
    const finished = (await after.sendMessage(userText("Go on.", { taskId: cut.id }))) as Task;
    expect(finished.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await second.killed();
  });
});
