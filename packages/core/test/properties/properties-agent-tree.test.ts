import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  agentTool,
  asks,
  final,
  MemoryEventStore,
  type Message,
  type ModelReply,
  resumeAgent,
  runAgent,
  type ToolCall,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { JsonlEventStore } from "../../src/stores/index.js";

/**
 * Every run of the tree uses the same call id `e1` for its email: decisions given by chained id
 * reach exactly the call they name, whatever subset is decided (openai-agents-python#5123, #2501).
 */

const emailTool = (sent: string[]) => {
  const registry = new ToolRegistry();
  registry.register(
    "send_email",
    "Send.",
    { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    ({ to }: { to: string }) => sent.push(to),
    { needsApproval: true },
  );
  return registry;
};

function tree(children: number, parentEmails: boolean, sent: string[]) {
  const registry = emailTool(sent);
  const child = (messages: readonly Message[]): ModelReply => {
    const task = (messages[1] as { content: string }).content;
    return messages.length === 2 ? asks(toolCall("e1", "send_email", { to: task })) : final(`${task} handled`);
  };
  registry.add(agentTool({ name: "research", description: "R.", model: child, registry: emailTool(sent) }));
  const calls: ToolCall[] = Array.from({ length: children }, (_, i) =>
    toolCall(`r${i}`, "research", { task: `child${i}` }),
  );
  if (parentEmails) calls.unshift(toolCall("e1", "send_email", { to: "parent" }));
  const parent = (messages: readonly Message[]): ModelReply =>
    messages.length === 2 ? asks(...calls) : final("Done.");
  return { parent, registry };
}

describe("property: decisions never cross runs", () => {
  it("runs exactly the decided calls, each in its own run, and keeps the others waiting", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.array(fc.constantFrom("skip", "approve", "deny"), { minLength: 4, maxLength: 4 }),
        async (children, parentEmails, choices) => {
          const sent: string[] = [];
          const store = new MemoryEventStore();
          const { parent, registry } = tree(children, parentEmails, sent);
          const paused = await runAgent("Go.", parent, registry, { store, runId: "p" });
          const waiting = paused.pendingApprovals ?? [];
          expect(waiting.map((call) => call.id)).toEqual([
            ...(parentEmails ? ["e1"] : []),
            ...Array.from({ length: children }, (_, i) => `r${i}/e1`),
          ]);
          const decisions: Record<string, { approved: boolean }> = {};
          const approved: string[] = [];
          for (const [index, call] of waiting.entries()) {
            const choice = choices[index];
            if (choice === "skip") continue;
            decisions[call.id] = { approved: choice === "approve" };
            if (choice === "approve") approved.push(String(call.args.to));
          }
          const result = await resumeAgent("p", parent, registry, { store, decisions });
          expect([...sent].sort()).toEqual([...approved].sort());
          const undecided = waiting.filter((call) => decisions[call.id] === undefined).map((call) => call.id);
          expect((result.pendingApprovals ?? []).map((call) => call.id)).toEqual(undecided);
          expect(result.status).toBe(undecided.length === 0 ? "done" : "awaiting_approval");
        },
      ),
      { numRuns: 60 },
    );
  });

  it("keeps a waiting call attributed to the child's own tool after the logs are read back by another store object (openai-agents-js#996)", async () => {
    const directory = await mkdtemp(join(tmpdir(), "agent-tree-"));
    try {
      const sent: string[] = [];
      const { parent, registry } = tree(1, false, sent);
      await runAgent("Go.", parent, registry, { store: new JsonlEventStore(directory), runId: "p" });
      const again = await resumeAgent("p", parent, registry, { store: new JsonlEventStore(directory) });
      expect(again.status).toBe("awaiting_approval");
      expect(again.pendingApprovals).toEqual([{ id: "r0/e1", name: "send_email", args: { to: "child0" } }]);
      const done = await resumeAgent("p", parent, registry, {
        store: new JsonlEventStore(directory),
        decisions: { "r0/e1": { approved: true } },
      });
      expect(done.status).toBe("done");
      expect(sent).toEqual(["child0"]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
