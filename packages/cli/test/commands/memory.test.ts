import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/exit-codes.js";
import { fixture, tempDir } from "../cli.js";
import { agentloop, runScripted, shellWords } from "../in-process.js";
import { readEvents } from "../logs.js";
import { startStudio } from "../studio.js";

const dir = tempDir();
const store = join(dir, "runs");
const memory = join(dir, "memory.db");
const script = (name: string, replies: unknown[]) => {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(replies));
  return path;
};
const told = script("told", [
  { content: "", toolCalls: [{ id: "w1", name: "remember", args: { key: "name", value: "The user's name is Ada" } }] },
  { content: "Nice to meet you, Ada.", toolCalls: [] },
]);
const asked = script("asked", [
  { content: "Your name is Ada.", toolCalls: [] },
  { content: "Ada, as I said.", toolCalls: [] },
]);

describe("agentloop run and chat --memory", () => {
  it("a second run remembers what the first was told: the memory is recalled before its first model call and shown to the model", async () => {
    const first = await runScripted(store, "first", told, "--memory", memory, "My name is Ada.");
    expect(first.stderr).toBe("");
    expect(first.code).toBe(EXIT_CODES.done);
    const written = readEvents(join(store, "first.jsonl")).find((event) => event.type === "memory.written");
    expect(written).toMatchObject({ key: "name", value: "The user's name is Ada", scope: { resource: "default" } });
    const second = await runScripted(store, "second", asked, "--memory", memory, "--json", "What is my name?");
    expect(second.code).toBe(EXIT_CODES.done);
    const result = JSON.parse(second.stdout) as { messages: { role: string; content: string }[] };
    expect(result.messages[2]?.role).toBe("user");
    expect(result.messages[2]?.content).toContain("The user's name is Ada");
    const events = readEvents(join(store, "second.jsonl"));
    expect(events.map((event) => event.type).slice(0, 3)).toEqual(["run.started", "memory.recalled", "model.replied"]);
    expect(events[1]).toMatchObject({
      query: "What is my name?",
      hits: [{ key: "name", value: "The user's name is Ada" }],
    });
    const shown = await agentloop(["show", join(store, "second.jsonl"), "--no-color"]);
    expect(shown.stdout).toMatch(/memory\.recalled +resource default · "What is my name\?" · 1 found: name/);
  });

  it("another scope does not see it; chat goes on recalling for each message, and its next-message line keeps --memory", async () => {
    const other = await runScripted(store, "other", asked, "--memory", memory, "--memory-scope", "bob", "Who am I?");
    expect(other.code).toBe(EXIT_CODES.done);
    expect(readEvents(join(store, "other.jsonl"))[1]).toMatchObject({
      type: "memory.recalled",
      scope: { resource: "bob" },
      hits: [],
    });
    await runScripted(store, "talk", asked, "--memory", memory, "Who am I?");
    const log = join(store, "talk.jsonl");
    const chat = await agentloop([
      "chat",
      log,
      "--tools",
      fixture("tools.mjs"),
      "--script",
      asked,
      "--memory",
      memory,
      "My name, again?",
    ]);
    expect(chat.stderr).toBe("");
    expect(chat.code).toBe(EXIT_CODES.done);
    const recalls = readEvents(log).filter((event) => event.type === "memory.recalled");
    expect(recalls.map((event) => (event as { query: string }).query)).toEqual(["Who am I?", "My name, again?"]);
    const line = /^go on +(agentloop .*)$/m.exec(chat.stdout)?.[1] ?? "";
    expect(shellWords(line)).toEqual(expect.arrayContaining(["--memory", memory]));
    const without = await agentloop(["chat", log, "--tools", fixture("tools.mjs"), "--script", asked, "Again?"]);
    expect(without.code).not.toBe(EXIT_CODES.done);
    expect(without.stderr).toMatch(/remember|recall/);
  });

  it("--memory must be a SQLite file, and --memory-scope needs it", async () => {
    const bad = await runScripted(store, "bad", asked, "--memory", join(dir, "memory.txt"), "hi");
    expect(bad.code).toBe(EXIT_CODES.usage);
    expect(bad.stderr).toContain("must be a .db or .sqlite file");
    const lone = await runScripted(store, "lone", asked, "--memory-scope", "bob", "hi");
    expect(lone.stderr).toContain("--memory-scope needs --memory");
  });

  it("the report and the studio's run page have a Memory panel: each recall with its hits, each write, escaped", async () => {
    const forged = script("forged", [
      {
        content: "",
        toolCalls: [{ id: "w9", name: "remember", args: { key: "note", value: "<script>alert(1)</script> name" } }],
      },
      { content: "Noted.", toolCalls: [] },
    ]);
    await runScripted(store, "panel-1", forged, "--memory", memory, "--memory-scope", "eve", "Note this.");
    await runScripted(store, "panel-2", asked, "--memory", memory, "--memory-scope", "eve", "What is my name?");
    const out = join(dir, "panel.html");
    const made = await agentloop(["show", join(store, "panel-2.jsonl"), "--html", out]);
    expect(made.code, made.stderr).toBe(0);
    const page = readFileSync(out, "utf8");
    const panel = page.slice(page.indexOf('<section class="memory-section" id="memory">'));
    expect(panel).toContain("<h2>Memory");
    expect(panel).toContain("recalled for <q>What is my name?</q>");
    expect(panel).toContain("&lt;script&gt;alert(1)&lt;/script&gt; name");
    expect(panel).not.toContain("<script>alert(1)");
    const studio = await startStudio(["--store", store]);
    const response = await studio.get("/runs/panel-1");
    const html = await response.text();
    expect(html).toContain('<section class="memory-section" id="memory">');
    expect(html).toMatch(/remembered<\/span> \[w9\] <code>note<\/code>/);
  });
});
