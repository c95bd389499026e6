import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { final, scriptedModel, ToolRegistry } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { afterAll, describe, expect, it } from "vitest";
import { agUiHandler } from "../src/index.js";
import { input, post } from "./fixture.js";

const directory = mkdtempSync(join(tmpdir(), "agentloop-thread-ids-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const BAD_IDS = ["..", ".hidden", "a/b", "a".repeat(5000)];

describe("a thread id the store cannot name", () => {
  const store = new JsonlEventStore(join(directory, "runs"));
  const handler = agUiHandler({ model: scriptedModel([final("Hi.")]), registry: new ToolRegistry(), store });

  it.each(BAD_IDS.map((id) => [id.length > 20 ? `${id.length} characters` : id, id]))(
    "'%s' is 400 with the rule in one line, for a message and a resume; nothing is written",
    async (_label, id) => {
      const resume = [{ interruptId: "e1", status: "resolved", payload: { approved: true } }];
      for (const body of [input(id, "r1", "hi"), input(id, "r2", "hi", { resume })]) {
        const response = await handler(post(body));
        expect(response.status).toBe(400);
        const { error } = (await response.json()) as { error: string };
        expect(error).toContain("use 1-128 letters, digits, '_', '-' or '.', not starting with '.'");
        expect(error).not.toContain("\n");
        expect(error.length).toBeLessThan(300);
      }
      expect(readdirSync(directory).flatMap((name) => readdirSync(join(directory, name)))).toEqual([]);
    },
  );
});
