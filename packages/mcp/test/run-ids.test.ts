import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { final, scriptedModel, ToolRegistry } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { afterAll, describe, expect, it } from "vitest";
import { serveAgent } from "../src/index.js";
import { connectTo } from "./connect.js";

const directory = mkdtempSync(join(tmpdir(), "agentloop-mcp-ids-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const BAD_IDS = ["..", ".hidden", "a/b", "a".repeat(5000)];

describe("a run id the store cannot name", () => {
  it.each(BAD_IDS.map((id) => [id.length > 20 ? `${id.length} characters` : id, id]))(
    "'%s' is a tool error with the rule in one line, for a task and a read-back; nothing is written",
    async (_label, runId) => {
      const store = new JsonlEventStore(join(directory, "runs"));
      const server = serveAgent({
        name: "helper",
        description: "Helps.",
        model: scriptedModel([final("Hi.")]),
        registry: new ToolRegistry(),
        store,
      });
      const { client, close } = await connectTo(server);
      try {
        for (const args of [{ task: "hi", runId }, { runId }]) {
          const result = await client.callTool({ name: "helper", arguments: args });
          expect(result.isError).toBe(true);
          const text = (result.content as { text: string }[])[0]?.text ?? "";
          expect(text).toContain("use 1-128 letters, digits, '_', '-' or '.', not starting with '.'");
          expect(text).not.toContain("\n");
          expect(text.length).toBeLessThan(300);
        }
      } finally {
        await close();
      }
      expect(readdirSync(directory).flatMap((name) => readdirSync(join(directory, name)))).toEqual([]);
    },
  );
});
