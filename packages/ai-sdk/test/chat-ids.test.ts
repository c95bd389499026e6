import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatHandler } from "@agentloop/ai-sdk";
import { ToolRegistry } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { final, scriptedModel } from "@agentloop/core/testing";
import { afterAll, describe, expect, it } from "vitest";

const directory = mkdtempSync(join(tmpdir(), "agentloop-chat-ids-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const BAD_IDS = ["..", ".hidden", "a/b", "a".repeat(5000)];
const RULE = "use 1-128 letters, digits, '_', '-' or '.', not starting with '.'";

describe("a chat id the store cannot name", () => {
  const store = new JsonlEventStore(join(directory, "runs"));
  const handler = chatHandler({ model: scriptedModel([final("Hi.")]), registry: new ToolRegistry(), store });

  it.each(BAD_IDS.map((id) => [id.length > 20 ? `${id.length} characters` : id, id]))(
    "'%s' is 400 with the rule in one line, for a message, its stream and its messages; nothing is written",
    async (_label, id) => {
      const messages = [{ id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }];
      const posted = await handler(
        new Request("http://127.0.0.1/api/chat", { method: "POST", body: JSON.stringify({ id, messages }) }),
      );
      // A URL cannot carry '..' as a path segment (it is resolved away): that one is only posted.
      const paths = id === ".." ? [] : ["stream", "messages"];
      const gets = await Promise.all(
        paths.map((what) => handler(new Request(`http://127.0.0.1/api/chat/${encodeURIComponent(id)}/${what}`))),
      );
      for (const response of [posted, ...gets]) {
        expect(response.status).toBe(400);
        const reason = await response.text();
        expect(reason).toContain(RULE);
        expect(reason).not.toContain("\n");
        expect(reason.length).toBeLessThan(300);
      }
      expect(readdirSync(directory).flatMap((name) => readdirSync(join(directory, name)))).toEqual([]);
    },
  );
});
