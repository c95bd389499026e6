import {
  agentTool,
  asks,
  final,
  MemoryEventStore,
  type Model,
  type ModelReply,
  resumeAgent,
  runAgent,
  scriptedModel,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { stepScriptedModel } from "@agentloop/restate";

// A parent delegates to a child agent whose email needs approval. The tree pauses; the decision is
// given later, as another process would: with the registry and the models built again.
const parentScript: ModelReply[] = [asks(toolCall("r1", "research", { task: "email ana" })), final("Done.")];
const childScript: ModelReply[] = [asks(toolCall("e1", "send_email", { to: "ana" })), final("Sent to ana.")];

function tree(child: Model, sent: string[]): ToolRegistry {
  const inner = new ToolRegistry();
  inner.register(
    "send_email",
    "Send an email.",
    { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    ({ to }: { to: string }) => sent.push(to),
    { needsApproval: true },
  );
  return new ToolRegistry([agentTool({ name: "research", description: "Research.", model: child, registry: inner })]);
}

/** Runs the tree to its pause, then resumes it with the approval, each with models made by `make`. */
export async function approveInANewProcess(make: (script: ModelReply[]) => Model) {
  const store = new MemoryEventStore();
  await runAgent("Email ana.", make(parentScript), tree(make(childScript), []), { store, runId: "p" });
  const sent: string[] = [];
  const decisions = { "r1/e1": { approved: true } };
  const result = await resumeAgent("p", make(parentScript), tree(make(childScript), sent), { store, decisions });
  return { status: result.status, pending: (result.pendingApprovals ?? []).map((call) => call.id), sent };
}

// scriptedModel counts its calls: made again for the resume, it starts from its first reply. The
// child, whose email was just approved and sent, asks for it again (its id e1 is taken in the run, so
// the call gets a new one) and the tree waits for a second approval.
const trap = await approveInANewProcess(scriptedModel);
console.log(trap); // { status: 'awaiting_approval', pending: [ 'r1/call_4_0' ], sent: [ 'ana' ] }

// stepScriptedModel answers by step (the assistant messages it is shown): the resumed child is at
// step 2, gets "Sent to ana.", and the tree ends.
const fixed = await approveInANewProcess(stepScriptedModel);
console.log(fixed); // { status: 'done', pending: [], sent: [ 'ana' ] }
