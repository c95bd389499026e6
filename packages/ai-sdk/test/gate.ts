import { ToolRegistry } from "@agentloop/core";

/** A registry whose `slow_lookup` holds until `open()`: a run that is still going for as long as a test needs. */
export function gatedRegistry(): {
  registry: ToolRegistry;
  entered: () => boolean;
  open: () => void;
  calls: () => number;
} {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let calls = 0;
  const registry = new ToolRegistry();
  registry.register("slow_lookup", "Looks something up, slowly.", { type: "object", properties: {} }, async () => {
    calls++;
    await gate;
    return "found";
  });
  return { registry, entered: () => calls > 0, open: () => release(), calls: () => calls };
}

/** Waits until `condition` holds, checking every few milliseconds. */
export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 2));
}
