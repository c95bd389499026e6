import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AgentResult } from "@agentloop/core";
import type { AgentHandlers } from "@agentloop/restate";
import type * as Testing from "@agentloop/restate/testing";

const SERVICE = fileURLToPath(new URL("./service.js", import.meta.url));

/** A Restate server with service processes of the weather workflow registered, behind one address when several. */
export interface Cluster {
  /** Runs the weather scenario on Restate: submits it and waits for its result. */
  run(steps: number, delayMs: number): Promise<AgentResult>;
  /** Runs it as the bare workflow of the same `ctx.run` calls; resolves to its model calls. */
  runBare(steps: number, delayMs: number): Promise<number>;
  /** CPU milliseconds the server and the service processes used so far, each (Linux; `NaN` elsewhere). */
  cpuMs(): CpuMs;
  /** Runs the scenario once, as agentloop or as the bare workflow, and counts the entries Restate journaled for it. */
  journalEntries(kind: "agent" | "bare", steps: number): Promise<number>;
  close(): Promise<void>;
}

/** CPU milliseconds used so far by the Restate server, and by the service processes together. */
export interface CpuMs {
  readonly server: number;
  readonly service: number;
}

let runs = 0;

/** The bare workflow's handlers, as its client sees them. */
type BareHandlers = {
  run(ctx: unknown, request: { task: string }): Promise<{ answer: string; steps: number }>;
};

/**
 * Starts the npm-shipped Restate server and `processes` service processes (behind a TCP balancer
 * when more than one), registered with it. Rejects with the reason when any of it cannot start.
 */
export async function startCluster(processes: number): Promise<Cluster> {
  const specifier = "@agentloop/restate/testing"; // a variable: the bench builds and runs without the package
  const testing = (await import(specifier)) as typeof Testing;
  const server = await testing.startRestateServer({ streamsPerConnection: 8 });
  const children: ChildProcess[] = [];
  let balancer: Testing.Balancer | null = null;
  const close = async () => {
    for (const child of children) child.kill("SIGKILL");
    await balancer?.close();
    await server.stop();
  };
  try {
    const ports: number[] = [];
    for (let index = 0; index < processes; index++) {
      const port = await testing.freePort();
      children.push(await startService(port));
      ports.push(port);
    }
    balancer = processes > 1 ? await testing.startBalancer(ports) : null;
    await server.register(`http://127.0.0.1:${balancer?.port ?? ports[0]}`);
  } catch (error) {
    await close();
    throw error;
  }
  const { connect } = await import("@restatedev/restate-sdk-clients");
  const ingress = connect({ url: server.ingress });
  return {
    run: async (steps, delayMs) => {
      const workflow = ingress.workflowClient<AgentHandlers>({ name: "weather" }, `bench-${process.pid}-${runs++}`);
      await workflow.workflowSubmit({ task: JSON.stringify({ steps, delayMs }), maxSteps: steps, tokenBudget: null });
      return workflow.workflowAttach();
    },
    runBare: async (steps, delayMs) => {
      const id = `bench-bare-${process.pid}-${runs++}`;
      const workflow = ingress.workflowClient<BareHandlers>({ name: "bare" }, id);
      await workflow.workflowSubmit({ task: JSON.stringify({ steps, delayMs }) });
      return (await workflow.workflowAttach()).steps;
    },
    cpuMs: childrenCpuMs,
    journalEntries: async (kind, steps) => {
      const id = `bench-journal-${process.pid}-${runs++}`;
      const name = kind === "agent" ? "weather" : "bare";
      const workflow = ingress.workflowClient<BareHandlers>({ name }, id);
      const limits = kind === "agent" ? { maxSteps: steps, tokenBudget: null } : {};
      await workflow.workflowSubmit({ task: JSON.stringify({ steps, delayMs: 0 }), ...limits });
      await workflow.workflowAttach();
      return journalSize(server.admin, `${name}/${id}/run`);
    },
    close,
  };
}

/** The entries of an invocation's journal, from the server's SQL over its admin API. */
async function journalSize(admin: string, target: string): Promise<number> {
  const query = `SELECT journal_size FROM sys_invocation WHERE target = '${target}'`;
  const headers = { "content-type": "application/json", accept: "application/json" };
  const response = await fetch(`${admin}/query`, { method: "POST", headers, body: JSON.stringify({ query }) });
  const { rows } = (await response.json()) as { rows: { journal_size: number }[] };
  return rows[0]?.journal_size ?? Number.NaN;
}

/** CPU milliseconds (user and system) of this process's children, the server's apart, from `/proc`. */
function childrenCpuMs(): CpuMs {
  try {
    const tasks = readdirSync("/proc/self/task");
    const pids = tasks.flatMap((task) => readFileSync(`/proc/self/task/${task}/children`, "utf8").trim().split(/\s+/));
    let server = 0;
    let service = 0;
    for (const pid of pids.filter((pid) => pid !== "")) {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).startsWith("restate")) server += ms;
      else service += ms;
    }
    return { server, service };
  } catch {
    return { server: Number.NaN, service: Number.NaN };
  }
}

function startService(port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVICE], {
      env: { ...process.env, PORT: String(port), RESTATE_LOGGING: "ERROR" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.once("exit", (code) => reject(new Error(`the bench's Restate service exited with ${code}`)));
    child.stdout?.once("data", () => resolve(child));
  });
}
