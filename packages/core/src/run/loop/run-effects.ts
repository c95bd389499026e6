import { type AgentSnapshot, pendingRequests } from "../../decide/index.js";
import { type AgentActor, drivenMachine } from "./driven-machine.js";
import { type EffectPorts, RunLoop } from "./run-loop.js";

export type { Approver } from "../performers/index.js";
export { DEFAULT_TOOL_TIMEOUT_MS, lostResult, mayRunAgain } from "../performers/index.js";
export type { AgentActor } from "./driven-machine.js";
export type { EffectPorts } from "./run-loop.js";

/** Where a resumed run stands: the state its log replays to, and the calls the log shows started but not finished. */
export interface Resumption {
  readonly snapshot: AgentSnapshot;
  /** Ids of the calls whose `tool.started` is logged without their `tool.finished`: the process died while they ran. */
  readonly interrupted: ReadonlySet<string>;
}

/**
 * A thin wrapper over `RunLoop` for an `agentMachine` actor you created yourself (runs never go
 * through it: `runAgent` and Restate drive `RunLoop` directly). It hands the actor's requests to
 * the loop, which performs them (calls the model, asks for decisions, runs tools, several at once
 * when the machine asks for several) and answers with domain events. Call it before `actor.start()`, so that it hears the
 * first requests; for an actor restored from `resume.snapshot`, the requests that state already
 * waits on (`pendingRequests`) are performed too. With a journal it logs each event before the
 * machine sees it. A failure (the model's, as a `ModelError`, the store's, a listener's) goes to
 * `fail`. Returns the function that stops driving: it aborts the signal given to the model and the
 * tools, and late results are dropped. Aborting `ports.signal` stops it too.
 */
export function driveEffects(
  actor: AgentActor,
  ports: EffectPorts,
  fail: (error: unknown) => void,
  resume?: Resumption,
): () => void {
  let started = false;
  let stopped = false;
  const start = () => {
    if (started || stopped) return;
    started = true;
    // After the step that emitted the request, so that the loop sees the state it led to.
    queueMicrotask(() => {
      loop.run().then(undefined, (error: unknown) => {
        if (!stopped) fail(error);
      });
    });
  };
  // The loop starts with the first request (the actor's start emits it), or at once for a restored state.
  const machine = drivenMachine(actor, resume === undefined ? [] : pendingRequests(resume.snapshot), start);
  const loop = new RunLoop(machine, ports, resume?.interrupted);
  const stop = () => {
    if (stopped) return;
    stopped = true;
    ports.signal?.removeEventListener("abort", stop);
    machine.stop();
    loop.stop();
  };
  ports.signal?.addEventListener("abort", stop, { once: true });
  if (ports.signal?.aborted) stop();
  if (resume !== undefined) start();
  return stop;
}
