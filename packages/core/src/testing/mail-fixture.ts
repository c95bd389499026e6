import { ToolRegistry } from "../tools/index.js";

/**
 * A registry with `send_email`, which needs approval, and the addresses it really sent to (in the
 * order sent): the fixture for approval tests, so that "the tool ran once" is counted the same way
 * everywhere. `needsApproval: false` makes it a tool that runs without asking.
 */
export function makeMailRegistry(options: { needsApproval?: boolean } = {}): {
  registry: ToolRegistry;
  sent: string[];
} {
  const sent: string[] = [];
  const registry = new ToolRegistry();
  registry.register(
    "send_email",
    "Send an email.",
    { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    ({ to }: { to: string }) => {
      sent.push(to);
      return { sent: to };
    },
    { needsApproval: options.needsApproval ?? true },
  );
  return { registry, sent };
}
