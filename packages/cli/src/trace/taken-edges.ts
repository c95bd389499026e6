import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from "xstate";
import { edgeIdOf } from "../chart/statechart.js";

/**
 * The machine with every named guard wrapped to tell `record` its result: the same decisions,
 * made visible through XState's public `provide`, so that the transitions a microstep took can be
 * named without XState's private fields.
 */
export function traceGuards<M extends AnyStateMachine>(machine: M, record: (name: string, value: boolean) => void): M {
  const guards = (machine.implementations.guards ?? {}) as Record<string, (...args: unknown[]) => boolean>;
  const wrapped = Object.fromEntries(
    Object.entries(guards).map(([name, guard]) => [
      name,
      (args: unknown, params: unknown) => {
        const value = guard(args, params);
        record(name, value);
        return value;
      },
    ]),
  );
  return machine.provide({ guards: wrapped } as Parameters<M["provide"]>[0]) as M;
}

/**
 * The chart ids of the transitions one microstep took from the state `from` (a chart node id): of
 * the transitions open there for `eventType` (`""` for eventless ones), in XState's order of
 * selection (the state's own, then its ancestors'), the first whose guard held (as `seen` noted)
 * and whose target fits where the microstep ended (`fits`).
 */
export function takenEdges(
  machine: AnyStateMachine,
  from: string,
  eventType: string,
  seen: ReadonlyMap<string, boolean> | undefined,
  fits: (transition: AnyTransitionDefinition) => boolean,
): string[] {
  const candidates: AnyTransitionDefinition[] = [];
  for (let node: AnyStateNode | undefined = machine.getStateNodeById(from); node !== undefined; node = node.parent) {
    candidates.push(...(eventType === "" ? (node.always ?? []) : (node.on[eventType] ?? [])));
  }
  const passing = candidates.filter((transition) => guardHolds(transition.guard, seen) !== false);
  const taken = passing.find(fits) ?? candidates.find(fits);
  return taken === undefined ? [] : [edgeIdOf(taken)];
}

/** Whether a guard held: `true`/`false` when the record tells, `undefined` when it cannot (an inline guard). */
function guardHolds(guard: unknown, seen: ReadonlyMap<string, boolean> | undefined): boolean | undefined {
  if (guard === undefined || guard === null) return true;
  if (typeof guard === "string") return seen?.get(guard);
  if (typeof guard === "object" && "type" in guard) return seen?.get(String(guard.type));
  if (typeof guard !== "function") return undefined;
  const parts = "guards" in guard && Array.isArray(guard.guards) ? guard.guards : null;
  if (parts === null) return undefined;
  const values = parts.map((part: unknown) => guardHolds(part, seen));
  if (guard.name === "not") return values[0] === undefined ? undefined : !values[0];
  if (values.includes(undefined)) return undefined;
  return guard.name === "or" ? values.includes(true) : values.every(Boolean);
}
