import { appendFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { AGENT_STATUSES } from "@agentloop/core";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, fixture, tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";
import { readEvents, sealedFor } from "../logs.js";
import { type Studio, startStudio } from "../studio.js";

const dir = tempDir();
const store = join(dir, "runs");
const outside = join(dir, "secret.txt");
let studio: Studio;
let bare: Studio;

beforeAll(async () => {
  const tools = fixture("tools.mjs");
  const run = (runId: string, script: string) =>
    agentloop(["run", "--tools", tools, "--store", store, "--run-id", runId, "--script", fixture(script), "Weather?"]);
  await run("done1", "weather-script.json");
  await run("paused1", "approval-script.json");
  // A parent whose `research` call runs a child run (`tree.r1`), whose own call waits.
  const tree = ["run", "--tools", fixture("agent-tools.mjs"), "--script", fixture("agent-script.json")];
  await agentloop([...tree, "--store", store, "--run-id", "tree", "Email ana."]);
  writeFileSync(outside, "not for the studio");
  symlinkSync(outside, join(store, "linked.jsonl"));
  const good = readEvents(join(store, "done1.jsonl"));
  writeFileSync(join(store, "broken.jsonl"), `${JSON.stringify(sealedFor("broken", good)[0])}\n{not json\n`);
  writeFileSync(join(store, "copied.jsonl"), good.map((event) => `${JSON.stringify(event)}\n`).join(""));
  studio = await startStudio(["--store", store, "--tools", tools, "--script", fixture("approval-rest.json")]);
  bare = await startStudio(["--store", store]);
}, hangGuard(60_000));

function rawGet(target: Studio, path: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(target.base);
  return new Promise((resolve, reject) => {
    const asked = request(
      { host: "127.0.0.1", port, path, headers: { cookie: `agentloop_studio=${target.token}` } },
      (answer) => {
        let body = "";
        answer.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        answer.on("end", () => resolve({ status: answer.statusCode ?? 0, body }));
      },
    );
    asked.on("error", reject);
    asked.end();
  });
}

describe("agentloop studio: the secret", () => {
  it("refuses a page, the runs and the events without the token (403)", async () => {
    for (const path of ["/", "/api/runs", "/events", "/runs/done1"]) {
      expect((await fetch(studio.base + path)).status).toBe(403);
    }
  });

  it("sets a cookie from the printed URL and sends the browser on without the token in the address", async () => {
    const answer = await fetch(studio.url, { redirect: "manual" });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/");
    expect(answer.headers.get("set-cookie")).toMatch(/HttpOnly; SameSite=Strict/);
  });

  it("refuses a change with the cookie alone, or with a wrong token (403)", async () => {
    const body = JSON.stringify({ keep: 1 });
    const withCookie = await fetch(`${studio.base}/api/runs/done1/fork`, {
      method: "POST",
      headers: { cookie: `agentloop_studio=${studio.token}` },
      body,
    });
    expect(withCookie.status).toBe(403);
    const wrong = await fetch(`${studio.base}/api/runs/done1/fork`, {
      method: "POST",
      headers: { "x-agentloop-token": `${studio.token}x` },
      body,
    });
    expect(wrong.status).toBe(403);
  });

  it("refuses a request for another host name (a name rebound to 127.0.0.1)", async () => {
    const port = new URL(studio.base).port;
    const status = await new Promise<number>((resolve, reject) => {
      const asked = request(
        { host: "127.0.0.1", port, path: `/?token=${studio.token}`, headers: { host: `evil.example:${port}` } },
        (answer) => resolve(answer.statusCode ?? 0),
      );
      asked.on("error", reject);
      asked.end();
    });
    expect(status).toBe(403);
  });
});

describe("agentloop studio: nothing outside the store", () => {
  it("answers paths that climb out of the store with 400 or 404, never a file", async () => {
    for (const path of [
      "/runs/..%2F..%2Fsecret.txt",
      "/runs/%2e%2e%2fsecret.txt",
      "/runs/..%2Fsecret",
      "/../secret.txt",
      "/runs/done1/../../secret.txt",
      "/compare?a=done1&b=..%2Fsecret",
    ]) {
      // Sent as written: fetch would resolve the dots before the server sees them.
      const answer = await rawGet(studio, path);
      expect([400, 404]).toContain(answer.status);
      expect(answer.body).not.toContain("not for the studio");
    }
  });

  it("shows a log that is a link out of the store as refused, never following it", async () => {
    const rows = (await (await studio.get("/api/runs")).json()) as { runId: string; status: string; refused: string }[];
    const linked = rows.find((row) => row.runId === "linked");
    expect(linked?.status).toBe("refused");
    expect(linked?.refused).toMatch(/cannot read linked\.jsonl/);
  });
});

describe("agentloop studio: refused logs and bad requests", () => {
  it("lists a broken log as refused with its reason, and the other runs as they are", async () => {
    const rows = (await (await studio.get("/api/runs")).json()) as { runId: string; status: string; refused: string }[];
    expect(rows.find((row) => row.runId === "broken")).toMatchObject({
      status: "refused",
      refused: "run 'broken': event 1 is not valid JSON",
    });
    expect(rows.find((row) => row.runId === "copied")).toMatchObject({
      status: "refused",
      refused: expect.stringMatching(/^run 'copied': event 0 does not match its hash/),
    });
    expect(rows.find((row) => row.runId === "done1")?.status).toBe("done");
  });

  it("offers every status a view names in the list's menu, and a log with no end as unfinished, as `list` says it", async () => {
    const page = await (await studio.get("/")).text();
    const menu = /<select id="status"[^>]*>(.*?)<\/select>/s.exec(page)?.[1] ?? "";
    const offered = [...menu.matchAll(/<option>([^<]+)<\/option>/g)].map((match) => match[1]);
    // Core's `refused` and a refused log share the word: the menu names it once.
    expect(offered).toEqual([...new Set([...AGENT_STATUSES, "model_failed", "unfinished", "refused"])]);
    const cut = sealedFor("cut1", readEvents(join(store, "done1.jsonl")).slice(0, 3));
    writeFileSync(join(store, "cut1.jsonl"), cut.map((event) => `${JSON.stringify(event)}\n`).join(""));
    const statusOfCut = async () => {
      const rows = (await (await studio.get("/api/runs")).json()) as { runId: string; status: string }[];
      return rows.find((row) => row.runId === "cut1")?.status;
    };
    await expect.poll(statusOfCut, { timeout: hangGuard(45_000) }).toBe("unfinished");
  });

  it("names an agent tool's child run by the run and the call that started it; its parent waits with it", async () => {
    const rows = (await (await studio.get("/api/runs")).json()) as {
      runId: string;
      status: string;
      calledBy: { runId: string; callId: string } | null;
    }[];
    expect(rows.find((row) => row.runId === "tree.r1")).toMatchObject({
      status: "awaiting_approval",
      calledBy: { runId: "tree", callId: "r1" },
    });
    // The parent waits with its child, as show and the run's page say.
    expect(rows.find((row) => row.runId === "tree")).toMatchObject({ status: "awaiting_approval", calledBy: null });
  });

  it("answers a refused run's page with a page that says so and why (409)", async () => {
    const answer = await studio.get("/runs/broken");
    expect(answer.status).toBe(409);
    expect(answer.headers.get("content-type")).toMatch(/text\/html/);
    expect(await answer.text()).toContain("run &#39;broken&#39;: event 1 is not valid JSON");
  });

  it("answers an unknown run with 404", async () => {
    expect((await studio.get("/runs/nope")).status).toBe(404);
    expect((await studio.post("/api/runs/nope/fork", { keep: 1 })).status).toBe(404);
  });

  it("refuses a decision on a call the run does not wait for (409)", async () => {
    const answer = await studio.post("/api/runs/done1/decisions", { callId: "m1", approved: true });
    expect(answer.status).toBe(409);
  });

  it("refuses a body that is not a JSON object (400) or too large (413)", async () => {
    const notJson = await fetch(`${studio.base}/api/runs/done1/fork`, {
      method: "POST",
      headers: { "x-agentloop-token": studio.token },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    expect((await studio.post("/api/runs/done1/fork", [1])).status).toBe(400);
    expect((await studio.post("/api/runs/done1/fork", { pad: "x".repeat(70_000) })).status).toBe(413);
  });

  it("refuses a fork outside the log (400)", async () => {
    expect((await studio.post("/api/runs/done1/fork", { keep: 0 })).status).toBe(400);
    expect((await studio.post("/api/runs/done1/fork", { keep: 999 })).status).toBe(400);
  });

  it("refuses to drive a run when started without tools, and to start one without a model (409)", async () => {
    const decide = await bare.post("/api/runs/paused1/decisions", { callId: "m1", approved: true });
    expect(decide.status).toBe(409);
    expect(((await decide.json()) as { error: string }).error).toMatch(/--tools/);
    expect((await bare.post("/api/runs", { task: "x" })).status).toBe(409);
  });

  it("answers other methods with 405 and unknown paths with 404", async () => {
    const put = await fetch(`${studio.base}/`, { method: "PUT", headers: { "x-agentloop-token": studio.token } });
    expect(put.status).toBe(405);
    expect((await studio.get("/nothing")).status).toBe(404);
  });
});

describe("agentloop studio: usage errors", () => {
  it("says in one line what is wrong with its flags", async () => {
    const cases: [string[], RegExp][] = [
      [["--store", join(dir, "none")], /store '.*none' does not exist/],
      [["--store", store, "--port", "70000"], /--port must be at most 65535/],
      [["--store", store, "--port", "x"], /--port must be a whole number/],
      [["--store", store, "--model", "openai:x", "--script", "s.json"], /give --model or --script, not both/],
    ];
    for (const [args, message] of cases) {
      const ran = await cli(["studio", ...args]);
      expect(ran.code).toBe(2);
      expect(ran.stderr).toMatch(message);
      expect(ran.stderr.trim().split("\n")).toHaveLength(1);
    }
  });
});

describe("agentloop studio: live", () => {
  it("announces an appended event, read from the appended bytes", async () => {
    const events = readEvents(join(store, "done1.jsonl"));
    mkdirSync(join(dir, "live"), { recursive: true });
    const file = join(store, "grow.jsonl");
    const sealed = sealedFor("grow", events);
    appendFileSync(file, `${JSON.stringify(sealed[0])}\n`);
    // The stream opens once the studio has read the first line: the change it announces next is the append's.
    const eventsOf = async () =>
      ((await (await studio.get("/api/runs")).json()) as { runId: string; events: number }[]).find(
        (row) => row.runId === "grow",
      )?.events;
    await expect.poll(eventsOf, { timeout: hangGuard(45_000) }).toBe(1);
    const stream = await studio.get("/events");
    const reader = stream.body?.getReader();
    const heard = (async () => {
      let text = "";
      while (!text.includes("data: grow\n")) {
        const chunk = await reader?.read();
        if (chunk === undefined || chunk.done) break;
        text += new TextDecoder().decode(chunk.value);
      }
      return text;
    })();
    appendFileSync(file, `${JSON.stringify(sealed[1])}\n`);
    expect(await heard).toContain("data: grow\n");
    await reader?.cancel();
    expect(await eventsOf()).toBe(2);
  });
});

describe("agentloop studio: a run that just appeared", () => {
  // Regression test; before the change: a page asked for right after its log was written could beat
  // the store watcher (which reads a changed log a moment after the change is announced), and the
  // studio answered 404 for a run that was there.
  it("shows a run whose log was written just before its page was asked for", async () => {
    const events = readEvents(join(store, "done1.jsonl"));
    const runIds = Array.from({ length: 8 }, (_, index) => `fresh${index}`);
    for (const runId of runIds) {
      const lines = sealedFor(runId, events).map((event) => `${JSON.stringify(event)}\n`);
      writeFileSync(join(store, `${runId}.jsonl`), lines.join(""));
    }
    const pages = await Promise.all(runIds.map((runId) => studio.get(`/runs/${runId}`)));
    expect(pages.map((page) => page.status)).toEqual(runIds.map(() => 200));
  });
});
