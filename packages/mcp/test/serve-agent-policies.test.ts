import { MemoryEventStore } from "@agentloop/core";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { serveAgent } from "../src/index.js";
import { POLICIES, policiesServed } from "./policies.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

describe("serveAgent goes on with every policy the server was configured with, with the MCP SDK's client", () => {
  it.each(POLICIES)(
    "%s: asked on every kind of turn (start, resume after an approval, continue, resume after an answer, a cut-off run taken up)",
    async (policy) => {
      const store = new MemoryEventStore();
      const { model, registry, options, asked, sent, expectUsed, cutOff } = policiesServed(policy);
      const server = serveAgent({ name: "helper", description: "Mails and plans.", model, registry, store, options });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client(
        { name: "agentloop-test", version: "1.0.0" },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
      );
      // The counts when the client was asked: where each turn that paused ended.
      const paused: (typeof asked)[] = [];
      client.setRequestHandler("elicitation/create", (request) => {
        paused.push({ ...asked });
        const { message } = request.params as { message: string };
        const content: Record<string, string | boolean> = message.startsWith("Approve")
          ? { approved: true }
          : { answer: "Lima" };
        return { action: "accept" as const, content };
      });
      await client.connect(clientSide);
      closers.push(async () => {
        await client.close();
        await server.close();
      });

      const started = { ...asked };
      // Start, paused on the approval; resumed with it.
      const first = await client.callTool({
        name: "helper",
        arguments: { task: "Mail Ana, then plan my trip.", runId: "p" },
      });
      expect(text(first)).toBe("Sent.");
      expect(first.isError).not.toBe(true);
      const firstDone = { ...asked };
      // Continued, paused on the question; resumed with the answer.
      const second = await client.callTool({ name: "helper", arguments: { task: "Now the trip.", runId: "p" } });
      expect(text(second)).toBe("Lima it is.");
      expect(second.isError).not.toBe(true);
      const [approval, question] = paused;
      if (approval === undefined || question === undefined) throw new Error(`asked ${paused.length} times, not twice`);
      expectUsed(started, approval, false);
      expectUsed(approval, firstDone);
      expectUsed(firstDone, question);
      expectUsed(question);

      // A call cut off by a failed model call; `{ runId }` takes the run up from its log.
      cutOff();
      const failed = await client.callTool({ name: "helper", arguments: { task: "One more thing.", runId: "p" } });
      expect(failed.isError).toBe(true);
      // The client is told the run failed, not the provider's words.
      expect(text(failed)).toBe("the agent failed (p)");
      const beforeResume = { ...asked };
      const resumed = await client.callTool({ name: "helper", arguments: { runId: "p" } });
      expect(text(resumed)).toBe("Noted.");
      // The step's compaction was logged before the call failed: the resumed step is not compacted again.
      expectUsed(beforeResume, asked, false);
      expect(sent).toEqual(["ana@example.com"]);
    },
  );
});
