import { chatHandler } from "@agentloop/ai-sdk";
import { MemoryEventStore } from "@agentloop/core";
import { lastAssistantMessageIsCompleteWithApprovalResponses, lastAssistantMessageIsCompleteWithToolCalls } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { lastText, listen, NodeChat } from "./chat-server.js";
import { until } from "./gate.js";
import { POLICIES, policiesServed } from "./policies.js";

const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("a served chat goes on with every policy the server was configured with", () => {
  it.each(POLICIES)(
    "%s: asked on every kind of turn (start, resume after an approval, continue, resume after an answer, a cut-off turn taken up)",
    async (policy) => {
      const store = new MemoryEventStore();
      const { model, registry, options, asked, sent, expectUsed, cutOff } = policiesServed(policy);
      const server = await listen(chatHandler({ model, registry, store, options }));
      servers.push(server);
      const errors: Error[] = [];
      const chat = new NodeChat("policies", server.url, {
        onError: (error) => errors.push(error),
        sendWhen: (sending) =>
          lastAssistantMessageIsCompleteWithApprovalResponses(sending) ||
          lastAssistantMessageIsCompleteWithToolCalls(sending),
      });
      const status = () => (chat.messages.at(-1)?.metadata as { status?: string } | undefined)?.status;
      const settled = (text: string) =>
        until(() => chat.status === "error" || (chat.status === "ready" && lastText(chat.messages) === text));

      let was = { ...asked };
      await chat.sendMessage({ text: "Mail Ana, then plan my trip." });
      expect(errors).toEqual([]);
      expect(status()).toBe("awaiting_approval");
      expectUsed(was, asked, false);

      was = { ...asked };
      await chat.addToolApprovalResponse({ id: "e1", approved: true });
      await settled("Sent.");
      expect(errors).toEqual([]);
      expect(sent).toEqual(["ana@example.com"]);
      expect(status()).toBe("done");
      expectUsed(was);

      was = { ...asked };
      await chat.sendMessage({ text: "Now the trip." });
      expect(errors).toEqual([]);
      expect(status()).toBe("awaiting_input");
      expectUsed(was);

      was = { ...asked };
      await chat.addToolOutput({ tool: "ask_user", toolCallId: "q1", output: "Lima" });
      await settled("Lima it is.");
      expect(errors).toEqual([]);
      expect(status()).toBe("done");
      expectUsed(was);

      // A turn cut off by a failed model call; the next message finishes it from its log, then goes on.
      cutOff();
      await chat.sendMessage({ text: "One more thing." });
      expect(errors).toHaveLength(1);
      errors.length = 0;
      was = { ...asked };
      await chat.sendMessage({ text: "Still there?" });
      expect(errors).toEqual([]);
      expect(lastText(chat.messages)).toContain("Still here.");
      expect(status()).toBe("done");
      expectUsed(was);
      expect(sent).toEqual(["ana@example.com"]);
    },
  );
});
