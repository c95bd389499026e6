import { createActor, transition } from "xstate";
import { agentMachine } from "../../src/index.js";
import type { AgentEvent, AgentMachineInput, AgentRequest, AgentSnapshot } from "../../src/machine.js";
import { traceProblem } from "../run/trace.js";
import { eventsAlong, type Graph, modelReplies, type Path, RISKY, RUNNING } from "./agent-graph.js";

/**
 * What the machine asks for along a path, and the proofs made from it: calls that need approval
 * run only on a decision given to that very occurrence, and a real actor does what the pure steps
 * said, entering its states only the designed ways.
 */

/** One event of a run and what it led to: the requests emitted (with the index of each call in its reply) and the snapshot after. */
export interface Stepped {
  readonly event: AgentEvent;
  readonly requests: readonly { readonly request: AgentRequest; readonly index: number }[];
  readonly after: AgentSnapshot;
}

function indexed(requests: readonly AgentRequest[], after: AgentSnapshot): Stepped["requests"] {
  const calls = after.context.batch?.calls ?? [];
  return requests.map((request) => ({
    request,
    index: request.type === "runTool" || request.type === "requestDecision" ? calls.indexOf(request.call) : -1,
  }));
}

const emitted = new WeakMap<AgentSnapshot, Map<string, Stepped>>();

/** The pure step from `before` with `event`: its requests are the `xstate.emit` actions `transition()` returns. */
export function step(before: AgentSnapshot, event: AgentEvent): Stepped {
  const known = emitted.get(before) ?? new Map<string, Stepped>();
  emitted.set(before, known);
  const key = JSON.stringify(event);
  const found = known.get(key);
  if (found !== undefined) return found;
  const [after, actions] = transition(agentMachine, before, event);
  // The typings leave the emit action out of the actions `transition()` returns.
  const requests = actions.flatMap(({ type, params }: { type: string; params?: unknown }) =>
    type === "xstate.emit" ? [(params as { event: AgentRequest }).event] : [],
  );
  const stepped = { event, requests: indexed(requests, after), after };
  known.set(key, stepped);
  return stepped;
}

/** A path's events stepped purely, each from the snapshot the path holds before it. */
export function stepsOf(path: Path): Stepped[] {
  return path.steps.slice(1).map((s, i) => step(path.steps[i]?.state as AgentSnapshot, s.event));
}

/**
 * What breaks the rule that approval belongs to a call occurrence, not to an id, along a run: a
 * call that needs approval is sent to run only in the step of a decision approving it (its id,
 * `approved: true`) given after the step that asked for that decision — so after its reply, while
 * it waited; one decision sends at most one call to run and lands on exactly one waiting call; a
 * decision is asked only for a call that needs one, once; no call is sent to run twice. Calls are
 * told apart by their reply and their place in it, whatever their ids.
 */
export function occurrenceProblems(run: readonly Stepped[]): string[] {
  const problems: string[] = [];
  // For the calls of the current reply (by index): the step that asked for a decision, for those still waiting.
  let waiting = new Map<number, number>();
  let asked = new Set<number>();
  let sent = new Set<number>();
  for (const [at, { event, requests, after }] of run.entries()) {
    const where = `at event ${at} (${event.type})`;
    if (event.type === "model.replied") {
      waiting = new Map();
      asked = new Set();
      sent = new Set();
    }
    const waitingBefore = [...waiting.keys()];
    let riskySent = 0;
    for (const { request, index } of requests) {
      if (request.type !== "runTool" && request.type !== "requestDecision") continue;
      const { call } = request;
      if (index < 0) problems.push(`${where}: ${request.type} for a call that is not in the reply`);
      if (request.type === "requestDecision") {
        if (call.name !== RISKY) problems.push(`${where}: a decision asked for ${call.name}`);
        if (asked.has(index)) problems.push(`${where}: a decision asked twice for call ${index}`);
        asked.add(index);
        waiting.set(index, at);
        continue;
      }
      if (sent.has(index)) problems.push(`${where}: call ${index} sent to run twice`);
      sent.add(index);
      if (call.name !== RISKY) continue;
      riskySent += 1;
      const askedAt = waiting.get(index);
      const approves = event.type === "approval.decided" && event.approved && event.callId === call.id;
      if (!approves || askedAt === undefined || askedAt >= at) {
        problems.push(
          `${where}: call ${index} (${call.id}) sent to run without a decision approving it while it waited`,
        );
      }
      waiting.delete(index);
    }
    if (riskySent > 1) problems.push(`${where}: one event sent ${riskySent} calls that need approval to run`);
    if (event.type === "approval.decided") {
      const batch = after.context.batch;
      const landed = waitingBefore.filter((index) => batch?.stateOf(index) !== "deciding");
      const waitedFor = waitingBefore.some((index) => batch?.calls[index]?.id === event.callId);
      const ids = landed.map((index) => batch?.calls[index]?.id);
      if (landed.length !== (waitedFor ? 1 : 0) || ids.some((id) => id !== event.callId)) {
        problems.push(`${where}: the decision for ${event.callId} landed on calls ${JSON.stringify(landed)}`);
      }
      for (const index of landed) {
        waiting.delete(index);
        const expected = event.approved ? "running" : "answered";
        if (batch?.stateOf(index) !== expected) problems.push(`${where}: call ${index} is not ${expected}`);
      }
    }
  }
  return problems;
}

interface Entered {
  readonly source: string;
  readonly target: string;
  readonly actions: readonly string[];
}

/** What a real actor did at its start (index 0) and for each event (index i + 1). */
export interface ActorStep {
  readonly requests: AgentRequest[];
  readonly entries: Entered[];
  readonly snapshot: AgentSnapshot;
}

export function actionName(action: unknown): string {
  if (typeof action === "string") return action;
  const type = (action as { type?: unknown } | null)?.type;
  return typeof type === "string" ? type : "(inline)";
}

/** Runs events through a started actor of the real machine, recording what it emits (nobody performs it) and the transitions it takes. */
export function runInActor(input: AgentMachineInput, events: readonly AgentEvent[]): ActorStep[] {
  const steps: { requests: AgentRequest[]; entries: Entered[] }[] = [{ requests: [], entries: [] }];
  const current = () => steps.at(-1) as (typeof steps)[number];
  const actor = createActor(agentMachine, {
    input,
    inspect: (inspection) => {
      if (inspection.type !== "@xstate.microstep") return;
      for (const t of inspection._transitions) {
        const actions = (t.actions ?? []).map(actionName);
        const targets = t.target ?? [];
        if (targets.length === 0) current().entries.push({ source: t.source.key, target: "(none)", actions });
        for (const target of targets) current().entries.push({ source: t.source.key, target: target.key, actions });
      }
    },
  });
  actor.on("*", (request) => {
    current().requests.push(request);
  });
  const snapshots: AgentSnapshot[] = [];
  actor.start();
  snapshots.push(actor.getSnapshot());
  for (const event of events) {
    steps.push({ requests: [], entries: [] });
    actor.send(event);
    snapshots.push(actor.getSnapshot());
  }
  actor.stop();
  return steps.map((s, i) => ({ ...s, snapshot: snapshots[i] as AgentSnapshot }));
}

/** What a path's run through a real actor got wrong; the paths are thousands, so problems are collected. */
export function actorProblems(graph: Graph, path: Path): string[] {
  const events = eventsAlong(path);
  const steps = runInActor(graph.input, events);
  const snapshot = (steps.at(-1) as ActorStep).snapshot;
  const problems: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) problems.push(`${what} along ${JSON.stringify(events.map((e) => e.type))}`);
  };
  const entries = steps.flatMap((s) => s.entries);
  const requests = steps.flatMap((s) => s.requests);
  const into = (target: string) => entries.filter((e) => e.target === target);
  check(
    into("callingModel").every((e) => e.source === "budgetCheck"),
    "callingModel entered from elsewhere than budgetCheck",
  );
  // budgetCheck follows the last answer: from nextCalls, or straight from runningTools with the last result.
  check(
    into("budgetCheck").every((e) => e.source === "nextCalls" || e.source === "runningTools"),
    "budgetCheck entered from elsewhere than nextCalls or runningTools",
  );
  for (const wait of ["runningTools", "awaitingDecision"]) {
    check(
      into(wait).every((e) => e.source === "nextCalls"),
      `${wait} entered from elsewhere than nextCalls`,
    );
  }
  for (const [i, s] of steps.entries()) {
    const event = events[i - 1];
    const taken = s.entries.flatMap((e) => e.actions);
    for (const request of s.requests) {
      if (request.type !== "runTool" && request.type !== "requestDecision") continue;
      // A call is sent to run only by enterCalls, or, when it needs approval, by recordDecision approving it.
      if (request.call.name === RISKY && request.type === "runTool") {
        const approving = event?.type === "approval.decided" && event.approved;
        check(approving && taken.includes("recordDecision"), `${request.call.id} sent to run by ${taken}`);
      } else {
        check(taken.includes("enterCalls"), `${request.type} for ${request.call.id} made by ${taken}`);
      }
    }
  }
  const calls = requests.filter((r) => r.type === "callModel");
  // One model call per reply, and one more for a call under way when the run was cancelled; the same for tools.
  const before = path.steps.at(-2)?.state;
  const cancelled = snapshot.value === "cancelled";
  check(into("callingModel").length === calls.length, "callingModel entered without a model call");
  const cancelledWhileCalling = cancelled && before?.value === "callingModel";
  check(calls.length === modelReplies(events) + (cancelledWhileCalling ? 1 : 0), "model calls != replies");
  check(calls.length <= graph.setup.maxSteps, "more model calls than maxSteps");
  check(JSON.stringify(calls.map((r) => r.step)) === JSON.stringify(calls.map((_, i) => i + 1)), "steps misnumbered");
  const runs = requests.filter((r) => r.type === "runTool").length;
  const finished = events.filter((e) => e.type === "tool.finished").length;
  const runningAtCancel = cancelled && before?.matches(RUNNING) === true ? (before.context.batch?.running ?? 0) : 0;
  check(runs === finished + runningAtCancel, "runTool requests != results");
  check(JSON.stringify(snapshot.value) === JSON.stringify(path.state.value), "another end than the graph's");
  check(snapshot.status === "done", "not ended");
  check(snapshot.context.steps === path.state.context.steps, "other steps than the graph's");
  const trace = traceProblem(snapshot.output?.messages ?? []);
  check(trace === null, `trace: ${trace}`);
  const stepped = steps.slice(1).map((s, i) => ({
    event: events[i] as AgentEvent,
    requests: indexed(s.requests, s.snapshot),
    after: s.snapshot,
  }));
  problems.push(...occurrenceProblems(stepped));
  return problems;
}
