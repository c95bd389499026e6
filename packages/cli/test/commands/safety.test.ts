import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixture, tempDir } from "../cli.js";
import { agentloop, runScripted, shellWords } from "../in-process.js";
import { type Connection, openSqlite } from "../sqlite-connection.js";

/** The first column of the only row of `sql`. */
const value = (db: Connection, sql: string) => Object.values(db.prepare(sql).all()[0] ?? {})[0];

const tools = fixture("tools.mjs");
const dir = tempDir();
const store = join(dir, "runs");
const paused = async (runId: string, script = fixture("odd-ids.json")) => {
  const ran = await runScripted(store, runId, script, "Mail");
  expect(ran.code).toBe(5);
  return join(store, `${runId}.jsonl`);
};
const resume = (log: string, ...flags: string[]) =>
  agentloop(["resume", log, "--tools", tools, "--script", fixture("odd-ids.json"), "--json", ...flags]);

/** One line on stderr, exit code 2, nothing on stdout. */
function refused(ran: { code: number; stdout: string; stderr: string }, text: string): void {
  expect(ran.code).toBe(2);
  expect(ran.stdout).toBe("");
  expect(ran.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(ran.stderr).toContain(text);
}

describe("decisions by call id", () => {
  it("--approve __proto__ approves the call with that id", async () => {
    const log = await paused("proto");
    const ran = await resume(log, "--approve", "__proto__", "--approve", "constructor", "--approve", "toString");
    expect(ran.stderr).toBe("");
    const result = JSON.parse(ran.stdout) as {
      status: string;
      messages: { role: string; toolCallId?: string; content: string }[];
    };
    expect(result.status).toBe("done");
    const answered = result.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.content]);
    expect(answered).toEqual([
      ["__proto__", '{"sent":true,"to":"a@example.com"}'],
      ["constructor", '{"sent":true,"to":"b@example.com"}'],
      ["toString", '{"sent":true,"to":"c@example.com"}'],
    ]);
  });

  it("--deny constructor, toString and __proto__ are denials, not 'both approved and denied'", async () => {
    const log = await paused("deny-odd");
    const ran = await resume(log, "--deny", "constructor", "--deny", "toString", "--deny", "__proto__");
    expect(ran.stderr).toBe("");
    const result = JSON.parse(ran.stdout) as { messages: { role: string; content: string }[] };
    const denials = result.messages.filter((m) => m.role === "tool" && m.content.includes("the user denied this call"));
    expect(denials).toHaveLength(3);
  });

  it("refuses a decision for a call that does not wait for one, naming the calls that do", async () => {
    const log = await paused("nosuch", fixture("approval-script.json"));
    const ran = await agentloop(["resume", log, "--tools", tools, "--approve", "nosuch"]);
    refused(ran, "agentloop: call 'nosuch' does not wait for a decision; the calls that wait: m1 (send_report)");
    const both = await agentloop(["resume", log, "--tools", tools, "--approve", "m1", "--deny", "m1"]);
    refused(both, "call 'm1' is both approved and denied: choose one");
  });
});

describe("paths and ids the user gives", () => {
  it("an invalid --run-id with a JSONL store is a usage error", async () => {
    const ran = await agentloop([
      "run",
      "--tools",
      tools,
      "--store",
      store,
      "--script",
      fixture("weather-script.json"),
      "--run-id",
      "../escape",
      "t",
    ]);
    refused(ran, "--run-id '../escape' is not a run id: use 1-128 letters, digits");
  });

  it("show --html to a missing directory names the path, before printing any timeline", async () => {
    const log = await paused("html-path", fixture("approval-script.json"));
    refused(
      await agentloop(["show", log, "--html", "/nonexistent/x.html"]),
      "agentloop: cannot write the report '/nonexistent/x.html': the directory '/nonexistent' does not exist",
    );
    refused(await agentloop(["show", log, "--html", dir]), `cannot write the report '${dir}': it is a directory`);
  });

  it("graph --output to a missing directory names the path", async () => {
    refused(
      await agentloop(["graph", "--output", "/nonexistent/x"]),
      "agentloop: cannot write the chart '/nonexistent/x': the directory '/nonexistent' does not exist",
    );
  });
});

describe("SQLite files are only read by show, replay and list", () => {
  const fingerprint = (file: string) => ({
    bytes: readFileSync(file).toString("base64"),
    mtime: statSync(file).mtimeMs,
  });

  it("show and replay leave an agentloop .db byte for byte as it was", async () => {
    const db = join(dir, "ours.db");
    await runScripted(db, "one", fixture("weather-script.json"), "--json", "t");
    const before = fingerprint(db);
    expect((await agentloop(["show", db])).code).toBe(0);
    expect((await agentloop(["replay", `${db}#one`, "--json"])).code).toBe(0);
    expect((await agentloop(["list", "--store", db])).code).toBe(0);
    expect(fingerprint(db)).toEqual(before);
  });

  it("a .db that is not an agentloop log is refused in one line naming it, and not touched", async () => {
    const db = join(dir, "theirs.db");
    const other = openSqlite(db);
    other.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')");
    other.close();
    const before = fingerprint(db);
    for (const args of [
      ["show", db],
      ["replay", `${db}#x`],
      ["list", "--store", db],
    ]) {
      const ran = await agentloop(args);
      expect(ran.code).toBe(2);
      expect(ran.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(ran.stderr).toContain(db);
    }
    expect(fingerprint(db)).toEqual(before);
    const check = openSqlite(db, true);
    expect(check.prepare("SELECT name FROM sqlite_master").all()).toEqual([{ name: "notes" }]);
    expect(value(check, "PRAGMA user_version")).toBe(0);
    expect(value(check, "PRAGMA journal_mode")).not.toBe("wal");
    check.close();
  });

  it("a file named .db that is not SQLite at all is refused in one line naming it", async () => {
    const file = join(dir, "text.db");
    writeFileSync(file, "just some text, not a database\n".repeat(40));
    const ran = await agentloop(["show", file]);
    refused(ran, file);
    expect(readFileSync(file, "utf8")).toBe("just some text, not a database\n".repeat(40));
  });
});

describe("a resume with other tools", () => {
  it("says in one short line what differs, tool by tool", async () => {
    const log = await paused("diff", fixture("approval-script.json"));
    const ran = await agentloop(["resume", log, "--tools", fixture("tools-changed.mjs"), "--approve", "m1"]);
    refused(ran, "was started with other tools than this registry has");
    expect(ran.stderr).toContain("get_weather: its description differs");
    expect(ran.stderr).toContain("send_report: in the log, not in the module");
    expect(ran.stderr.length).toBeLessThan(400);
  });
});

describe("hints work when followed literally", () => {
  it("the approve, deny and show commands a paused run prints", async () => {
    const script = fixture("approval-full.json");
    for (const decide of ["approve", "deny"]) {
      const ran = await runScripted(store, `hint-${decide}`, script, "Mail");
      expect(ran.code).toBe(5);
      const line = new RegExp(`^${decide} +(agentloop .*)$`, "m").exec(ran.stdout)?.[1] ?? "";
      expect(line).toContain("--script");
      const [program, ...words] = shellWords(line);
      expect(program).toBe("agentloop");
      const followed = await agentloop(words);
      expect(followed.stderr).toBe("");
      expect(followed.code).toBe(0);
      expect(followed.stdout).toContain("result   done · steps 3");
      const see = /^see it +(agentloop [^(]*?) +\(/m.exec(ran.stdout)?.[1] ?? "";
      const shown = await agentloop(shellWords(see).slice(1));
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain(decide === "approve" ? "approved send_report [m1]" : "denied send_report [m1]");
    }
  });

  it("a reply whose calls all wait: one command decides every one of them", async () => {
    const ran = await runScripted(store, "three-waiting", fixture("odd-ids.json"), "Mail");
    expect(ran.code).toBe(5);
    const waiting =
      "waiting  for a decision on __proto__ (send_report), constructor (send_report), toString (send_report)";
    expect(ran.stdout).toContain(waiting);
    expect((await agentloop(["show", join(store, "three-waiting.jsonl")])).stdout).toContain(waiting);
    const line = /^approve +(agentloop .*)$/m.exec(ran.stdout)?.[1] ?? "";
    expect(line).toContain("--approve __proto__ --approve constructor --approve toString");
    const followed = await agentloop(shellWords(line).slice(1));
    expect(followed.stderr).toBe("");
    expect(followed.code).toBe(0);
    expect(followed.stdout).toContain("result   done · steps 2");
  });

  it("quotes paths with spaces so that the shell keeps them whole", async () => {
    const spaced = join(dir, "my runs");
    const ran = await runScripted(spaced, "sp", fixture("approval-full.json"), "Mail");
    const line = /^approve +(agentloop .*)$/m.exec(ran.stdout)?.[1] ?? "";
    expect(line).toContain(`'${join(spaced, "sp.jsonl")}'`);
    const followed = await agentloop(shellWords(line).slice(1));
    expect(followed.code).toBe(0);
  });
});
