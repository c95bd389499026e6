import { UsageError } from "../cli-error.js";
import { loggedTools, type RunSettings, type ToolRegistry, type ToolSpec } from "../core-api.js";

/** Differences shown at most; the rest are counted. */
const SHOWN = 4;

/**
 * Refuses a registry whose tools differ from the ones a run was started with, in one line that
 * says what differs, tool by tool (missing, extra, description, parameters, approval), instead of
 * both sets of specs in full.
 */
export function checkSameTools(runId: string, settings: RunSettings, registry: ToolRegistry, module: string): void {
  const differences = toolsDiff(loggedTools(settings), {
    specs: registry.specs(),
    approval: registry.approvalRequired(),
  });
  if (differences.length === 0) return;
  const shown = differences.slice(0, SHOWN).join("; ");
  const more = differences.length > SHOWN ? `; and ${differences.length - SHOWN} more` : "";
  throw new UsageError(
    `run '${runId}' was started with other tools than this registry has (${module}): ${shown}${more}`,
  );
}

type Tools = { readonly specs: readonly ToolSpec[]; readonly approval: readonly string[] };

/** What differs between the logged tools and the registry's, one short phrase per difference. */
export function toolsDiff(logged: Tools, current: Tools): string[] {
  const byName = (specs: readonly ToolSpec[]) => new Map(specs.map((spec) => [spec.name, spec]));
  const before = byName(logged.specs);
  const now = byName(current.specs);
  const differences: string[] = [];
  for (const [name, spec] of before) {
    const other = now.get(name);
    if (other === undefined) differences.push(`${name}: in the log, not in the module`);
    else {
      if (other.description !== spec.description) differences.push(`${name}: its description differs`);
      if (canonical(other.parameters) !== canonical(spec.parameters))
        differences.push(`${name}: its parameters differ`);
    }
  }
  for (const name of now.keys()) if (!before.has(name)) differences.push(`${name}: in the module, not in the log`);
  for (const name of new Set([...logged.approval, ...current.approval])) {
    const was = logged.approval.includes(name);
    if (was !== current.approval.includes(name) && before.has(name) && now.has(name))
      differences.push(
        `${name}: ${was ? "needed approval in the log, not in the module" : "needs approval in the module, not in the log"}`,
      );
  }
  if (
    differences.length === 0 &&
    canonical(logged.specs.map((s) => s.name)) !== canonical(current.specs.map((s) => s.name))
  )
    differences.push("the tools are registered in another order");
  return differences;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
