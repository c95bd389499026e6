import type { AgentToolDefinition } from "../../src/index.js";
import { agentTool, type ModelReply, type ScriptedModel, scriptedModel, ToolRegistry } from "../../src/index.js";

/** A search agent (`search`, and `send_email` that needs approval) as the tool `research` of a parent. */
export function searchTree(
  childReplies: ModelReply[],
  options: Partial<Pick<AgentToolDefinition, "options" | "name">> = {},
): { child: ScriptedModel; registry: ToolRegistry; searched: string[]; sent: string[] } {
  const searched: string[] = [];
  const sent: string[] = [];
  const inner = new ToolRegistry();
  inner.register(
    "search",
    "Search the web.",
    { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    ({ q }: { q: string }) => {
      searched.push(q);
      return { hits: [`${q} result`] };
    },
  );
  inner.register(
    "send_email",
    "Send an email.",
    { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    ({ to }: { to: string }) => {
      sent.push(to);
      return { sent: to };
    },
    { needsApproval: true },
  );
  const child = scriptedModel(childReplies);
  const registry = new ToolRegistry([
    agentTool({
      name: options.name ?? "research",
      description: "Delegates a research task to the search agent.",
      model: child,
      registry: inner,
      options: { system: "You search.", ...options.options },
    }),
  ]);
  return { child, registry, searched, sent };
}
