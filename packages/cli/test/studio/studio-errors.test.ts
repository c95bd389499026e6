import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, fixture, tempDir } from "../cli.js";
import { agentloop } from "../in-process.js";
import { type Studio, startStudio } from "../studio.js";

const dir = tempDir();
const db = join(dir, "runs.db");
let studio: Studio;

beforeAll(async () => {
  const tools = fixture("tools.mjs");
  const run = (runId: string, script: string) =>
    agentloop(["run", "--tools", tools, "--store", db, "--run-id", runId, "--script", fixture(script), "Weather?"]);
  await run("done1", "weather-script.json");
  await run("paused1", "approval-script.json");
  studio = await startStudio(["--store", db, "--tools", tools, "--script", fixture("approval-rest.json")]);
}, hangGuard(60_000));

describe("agentloop studio on a SQLite store", () => {
  it("lists its runs and serves their pages", async () => {
    const rows = (await (await studio.get("/api/runs")).json()) as { runId: string; status: string }[];
    expect(rows.map((row) => [row.runId, row.status]).sort()).toEqual([
      ["done1", "done"],
      ["paused1", "awaiting_approval"],
    ]);
    const page = await studio.get("/runs/done1");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("It is 86 F in Pune.");
  });

  it("refuses a next message to a run that has not finished (409), and an empty one (400)", async () => {
    expect((await studio.post("/api/runs/paused1/messages", { message: "and?" })).status).toBe(409);
    expect((await studio.post("/api/runs/done1/messages", { message: " " })).status).toBe(400);
  });

  it("resumes a paused run after a decision, and refuses a second decision once it went on", async () => {
    expect((await studio.post("/api/runs/paused1/decisions", { callId: "m1", approved: false })).status).toBe(202);
    await expect
      .poll(
        async () => {
          const rows = (await (await studio.get("/api/runs")).json()) as { runId: string; status: string }[];
          return rows.find((row) => row.runId === "paused1")?.status;
        },
        { timeout: hangGuard(45_000) },
      )
      .toBe("done");
    expect((await studio.post("/api/runs/paused1/decisions", { callId: "m1", approved: true })).status).toBe(409);
  });
});

describe("agentloop studio: what it cannot start with", () => {
  it("says in one line that the port is taken", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const address = taken.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    try {
      const ran = await cli(["studio", "--store", db, "--port", String(port)]);
      expect(ran.code).toBe(2);
      expect(ran.stderr).toBe(
        `agentloop: cannot listen on 127.0.0.1:${port}: it is in use (give another --port, or 0)\n`,
      );
    } finally {
      taken.close();
    }
  });

  it("says in one line that a .db file is not a SQLite file", async () => {
    const bad = join(dir, "notes.db");
    writeFileSync(bad, "just some notes, not a database at all, long enough to have a header of a hundred bytes ....");
    const ran = await cli(["studio", "--store", bad, "--port", "0"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim().split("\n")).toHaveLength(1);
    expect(ran.stderr).toMatch(/notes\.db/);
  });
});
