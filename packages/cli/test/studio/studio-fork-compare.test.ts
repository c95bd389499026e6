import { appendFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JsonlEventStore, type RepairableStore, type StoredEvent } from "../../src/core-api.js";
import { StudioActions } from "../../src/studio/server/studio-actions.js";
import { createStudioServer } from "../../src/studio/server/studio-server.js";
import { JsonlWatcher } from "../../src/studio/watch/jsonl-watcher.js";
import { fixture, tempDir } from "../cli.js";
import { runScripted } from "../in-process.js";
import { readEvents, sealedFor } from "../logs.js";

// The studio's watcher reads a log while it is written: it may have seen only the first events of a
// log when a page that does not follow the run (the comparison) is asked for. These tests stop the
// watcher's own looks (it is never started, so only the studio's reads happen) and let it see a log
// half written, as a busy machine does.
const dir = tempDir();
const logs = join(dir, "runs");
const token = "secret-token";
const watcher = new JsonlWatcher(logs);
let base = "";
let close = () => {};

/** The store the studio forks into; once a fork's third event is written, the watcher looks at the store. */
function halfSeenStore(): RepairableStore {
  const inner = new JsonlEventStore(logs);
  const written = new Map<string, number>();
  return {
    read: (runId) => inner.read(runId),
    list: () => inner.list(),
    repair: (runId) => inner.repair(runId),
    acquire: (runId) => inner.acquire(runId),
    async append(runId: string, event: StoredEvent) {
      await inner.append(runId, event);
      const count = (written.get(runId) ?? 0) + 1;
      written.set(runId, count);
      if (runId.startsWith("fork-") && count === 3) watcher.poke();
    },
  };
}

beforeAll(async () => {
  expect((await runScripted(logs, "weather-a", fixture("weather-script.json"), "Weather in Pune?")).code).toBe(0);
  watcher.poke();
  const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: {} };
  const actions = new StudioActions({ store: halfSeenStore(), sources: null, model: {}, io });
  const hosts = new Set<string>();
  const server = createStudioServer({ watcher, actions, token, storeLabel: logs, hosts });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  hosts.add(`127.0.0.1:${port}`);
  base = `http://127.0.0.1:${port}`;
  close = () => server.close();
}, hangGuard(60_000));

afterAll(() => close());

async function divergenceOf(a: string, b: string): Promise<string | undefined> {
  const page = await (
    await fetch(`${base}/compare?a=${a}&b=${b}`, { headers: { cookie: `agentloop_studio=${token}` } })
  ).text();
  return /id="divergence" data-at="(\d*)"/.exec(page)?.[1];
}

describe("the studio's comparison of a run with its fork", () => {
  it("shows the whole fork once the fork is answered, though the watcher saw it half written", async () => {
    const answer = await fetch(`${base}/api/runs/weather-a/fork`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-agentloop-token": token },
      body: JSON.stringify({ keep: 5 }),
    });
    expect(answer.status).toBe(201);
    const { runId } = (await answer.json()) as { runId: string };
    // The fork keeps run.started and the next 4 events: the runs differ from the fork's end on.
    expect(await divergenceOf("weather-a", runId)).toBe("5");
  });

  it("shows a log as the store holds it when the page is asked for, though another process still wrote it at the watcher's last look", async () => {
    const lines = sealedFor("copied", readEvents(join(logs, "weather-a.jsonl"))).map((e) => `${JSON.stringify(e)}\n`);
    const file = join(logs, "copied.jsonl");
    writeFileSync(file, lines.slice(0, 3).join(""));
    watcher.poke();
    appendFileSync(file, lines.slice(3).join(""));
    expect(await divergenceOf("weather-a", "copied")).toBe("");
  });
});
