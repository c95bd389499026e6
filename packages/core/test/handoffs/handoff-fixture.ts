import {
  type HandoffOptions,
  handoff,
  type ModelReply,
  type ScriptedModel,
  scriptedModel,
  ToolRegistry,
  tool,
} from "../../src/index.js";

/** Triage, which hands off to billing (and billing back to triage): two agents, each its own scripted model and tools. */
export function triageAndBilling(
  triageReplies: ModelReply[],
  billingReplies: ModelReply[],
  options: { toBilling?: HandoffOptions; billingSystem?: string } = {},
): {
  triage: ScriptedModel;
  billing: ScriptedModel;
  triageTools: ToolRegistry;
  billingTools: ToolRegistry;
  refunds: string[];
} {
  const triage = Object.assign(scriptedModel(triageReplies), { modelName: "triage-model" });
  const billing = Object.assign(scriptedModel(billingReplies), { modelName: "billing-model" });
  const refunds: string[] = [];
  const triageTools = new ToolRegistry([
    tool({
      name: "lookup",
      description: "Looks an order up.",
      parameters: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
      execute: ({ order }: { order: string }) => ({ order, total: 42 }),
    }),
  ]);
  const billingTools = new ToolRegistry([
    tool({
      name: "refund",
      description: "Refunds an order.",
      parameters: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
      execute: ({ order }: { order: string }) => {
        refunds.push(order);
        return { refunded: order };
      },
    }),
  ]);
  const system = options.billingSystem ?? "You are billing. Refund orders.";
  triageTools.add(
    handoff(
      { name: "billing", description: "Refunds and invoices.", model: billing, registry: billingTools, system },
      options.toBilling,
    ),
  );
  billingTools.add(handoff({ name: "triage", model: triage, registry: triageTools, system: "You are triage." }));
  return { triage, billing, triageTools, billingTools, refunds };
}
