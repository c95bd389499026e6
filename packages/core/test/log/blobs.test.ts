import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  asks,
  type ContentPart,
  type EventStore,
  final,
  MemoryEventStore,
  type Model,
  type ModelReply,
  replayRun,
  resumeAgent,
  runAgent,
  ToolRegistry,
  toolCall,
} from "../../src/index.js";
import { chainHash, loggedEvent, parseEventLog, runHashSeed, stampEvent } from "../../src/log/index.js";
import { plainSha256Hex, sha256Hex } from "../../src/log/sha256.js";
import type { StoredEvent } from "../../src/store.js";
import { JsonlEventStore } from "../../src/stores/jsonl-store.js";

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});
function newDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-blobs-"));
  directories.push(directory);
  return directory;
}

/** Deterministic bytes that start as a PNG does: `size` of them, patterned by `seed`. */
function sampleImage(size: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let index = 0; index < size; index++) bytes[index] = (index * 31 + seed * 17 + (index >> 8)) & 0xff;
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].slice(0, size));
  return bytes;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const image = (bytes: Uint8Array): ContentPart => ({ type: "image", mediaType: "image/png", data: bytes });

describe("SHA-256", () => {
  it("node:crypto's and the plain one agree with the standard's vectors and each other at the block edges", () => {
    const text = (value: string) => new TextEncoder().encode(value);
    const vectors: [Uint8Array, string][] = [
      [text(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
      [text("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
      [
        text("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
      ],
    ];
    for (const [bytes, digest] of vectors) {
      expect(sha256Hex(bytes)).toBe(digest);
      expect(plainSha256Hex(bytes)).toBe(digest);
    }
    for (const size of [55, 56, 63, 64, 65, 119, 120, 1000]) {
      const bytes = sampleImage(size, size);
      expect(plainSha256Hex(bytes), `${size} bytes`).toBe(sha256Hex(bytes));
    }
  });
});

describe("the logged form of an event", () => {
  it("a text-only event is logged as it is, and chained as before", () => {
    const event = stampEvent(
      { type: "user.messaged", content: "Hello" },
      3,
      "2026-01-01T00:00:00.000Z",
      "00000000000001",
    );
    const { hash, ...rest } = event;
    expect(hash).toBe(chainHash("00000000000001", JSON.stringify(rest)));
    expect(loggedEvent(event)).toEqual({ event, blobs: new Map() });
    expect(loggedEvent(event).event).toBe(event);
  });

  it("a part's bytes become { sha256, bytes }, a URL stays, and the hash covers the reference", () => {
    const bytes = sampleImage(100);
    const content = [
      { type: "image", mediaType: "image/png", data: base64(bytes) },
      { type: "image", mediaType: "image/png", data: "https://example.com/a.png" },
    ] as const;
    const event = stampEvent({ type: "user.messaged", content }, 1, "2026-01-01T00:00:00.000Z", runHashSeed("r"));
    const logged = loggedEvent(event);
    const sha256 = sha256Hex(bytes);
    expect(logged.event.content).toEqual([
      { type: "image", mediaType: "image/png", data: { sha256, bytes: 100 } },
      { type: "image", mediaType: "image/png", data: "https://example.com/a.png" },
    ]);
    expect([...logged.blobs.keys()]).toEqual([sha256]);
    const { hash, ...rest } = logged.event;
    expect(hash).toBe(chainHash(runHashSeed("r"), JSON.stringify(rest)));
  });

  it("an event logged with its bytes inline (a store that keeps no blobs) still checks against its hash", async () => {
    const inline: StoredEvent[] = [];
    const store: EventStore = {
      append: async (_runId, event) => void inline.push(JSON.parse(JSON.stringify(event)) as StoredEvent),
      read: async (runId) => parseEventLog(runId, inline),
      list: async () => [],
    };
    const live = await runAgent([image(sampleImage(500))], (() => final("A picture.")) as Model, new ToolRegistry(), {
      store,
      runId: "inline",
    });
    expect(replayRun(await store.read("inline")).result).toEqual({ ...live, runId: undefined });
  });

  it("a log with references read without a source of blobs is refused in one line", async () => {
    const store = new MemoryEventStore();
    await runAgent([image(sampleImage(500))], (() => final("A picture.")) as Model, new ToolRegistry(), {
      store,
      runId: "refs",
    });
    const [first] = await store.read("refs");
    const logged = loggedEvent(first as StoredEvent).event;
    expect(() => parseEventLog("refs", [logged])).toThrow(
      `run 'refs': event 0 refers to blob sha256:${sha256Hex(sampleImage(500))} (image/png, 500 bytes), and was read without the run's blobs`,
    );
  });
});

describe("parseEventLog with a source of blobs", () => {
  /** A run with an image, as logged (references), and its blobs. */
  async function loggedRun() {
    const store = new MemoryEventStore();
    await runAgent([image(sampleImage(700))], (() => final("Seen.")) as Model, new ToolRegistry(), {
      store,
      runId: "seen",
    });
    const events = await store.read("seen");
    const blobs = new Map<string, Uint8Array>();
    const values = events.map((event) => {
      const logged = loggedEvent(event);
      for (const [sha256, bytes] of logged.blobs) blobs.set(sha256, bytes);
      return JSON.parse(JSON.stringify(logged.event)) as Record<string, unknown>;
    });
    return { events, blobs, values, source: { read: (sha: string) => blobs.get(sha), where: "the test's map" } };
  }
  const sha = sha256Hex(sampleImage(700));

  it("reads the events back with their bytes", async () => {
    const { events, values, source } = await loggedRun();
    expect(parseEventLog("seen", values, source)).toEqual(events);
  });

  it("refuses a missing blob, a changed blob and a changed reference, each in one line", async () => {
    const { blobs, values, source } = await loggedRun();
    const missing = { read: () => undefined, where: "an empty map" };
    expect(() => parseEventLog("seen", values, missing)).toThrow(
      `run 'seen': event 0 refers to blob sha256:${sha} (image/png, 700 bytes), which is missing from an empty map`,
    );
    const changed = Uint8Array.from(blobs.get(sha) ?? []);
    changed[9] = (changed[9] ?? 0) ^ 1;
    expect(() => parseEventLog("seen", values, { read: () => changed, where: "the test's map" })).toThrow(
      `run 'seen': event 0 refers to blob sha256:${sha} (image/png, 700 bytes), whose bytes in the test's map do not match that hash: the blob was changed after it was written`,
    );
    const other = "0".repeat(64);
    const edited = [JSON.parse(JSON.stringify(values[0]).replace(sha, other)), ...values.slice(1)];
    const error = (() => {
      try {
        parseEventLog("seen", edited, source);
      } catch (caught) {
        return caught as Error & { position: number };
      }
      return null;
    })();
    expect(error?.position).toBe(0);
    expect(error?.message).toContain(`run 'seen': event 0 does not match its hash (it refers to blob sha256:${other})`);
  });
});

describe("JsonlEventStore blobs", () => {
  it("writes the reference in the line and the bytes once in <runId>.blobs/, and a refused read changes no file", async () => {
    const directory = newDirectory();
    const store = new JsonlEventStore(directory);
    const bytes = sampleImage(4000);
    await runAgent(
      [{ type: "text", text: "Look." }, image(bytes)],
      (() => final("Seen.")) as Model,
      new ToolRegistry(),
      {
        store,
        runId: "look",
      },
    );
    const log = readFileSync(join(directory, "look.jsonl"), "utf8");
    expect(log).not.toContain(base64(bytes).slice(0, 40));
    expect(log).toContain(`"data":{"sha256":"${sha256Hex(bytes)}","bytes":4000}`);
    expect(readdirSync(join(directory, "look.blobs"))).toEqual([sha256Hex(bytes)]);
    expect(readFileSync(join(directory, "look.blobs", sha256Hex(bytes)))).toEqual(Buffer.from(bytes));
    rmSync(join(directory, "look.blobs", sha256Hex(bytes)));
    await expect(new JsonlEventStore(directory).read("look")).rejects.toThrow(
      `run 'look': event 0 refers to blob sha256:${sha256Hex(bytes)} (image/png, 4000 bytes), which is missing from the folder ${join(directory, "look.blobs")}`,
    );
    expect(readFileSync(join(directory, "look.jsonl"), "utf8")).toBe(log);
  });

  it("a run waiting for a decision resumes from another store object with the image shown again", async () => {
    const directory = newDirectory();
    const registry = new ToolRegistry();
    registry.register("post", "Posts the picture.", { type: "object" }, () => "posted", { needsApproval: true });
    const bytes = sampleImage(2500);
    const shown: unknown[] = [];
    const model: Model = (messages): ModelReply => {
      shown.push(messages[1]?.content);
      return shown.length === 1 ? asks(toolCall("c1", "post", {})) : final("Posted.");
    };
    const paused = await runAgent([image(bytes)], model, registry, {
      store: new JsonlEventStore(directory),
      runId: "post",
    });
    expect(paused.status).toBe("awaiting_approval");
    const result = await resumeAgent("post", model, registry, {
      store: new JsonlEventStore(directory),
      decisions: { c1: { approved: true } },
    });
    expect(result.answer).toBe("Posted.");
    expect(shown[1]).toEqual([{ type: "image", mediaType: "image/png", data: base64(bytes) }]);
  });

  it("a 5 MB image given once in a 200-step run leaves the log under 1 MB and one blob of 5 MB", async () => {
    const directory = newDirectory();
    const store = new JsonlEventStore(directory, { durability: "none" });
    const registry = new ToolRegistry();
    registry.register("tick", "Counts a step.", { type: "object" }, () => "ok");
    const bytes = sampleImage(5 * 1024 * 1024);
    let step = 0;
    const model: Model = (): ModelReply => (++step < 200 ? asks(toolCall(`c${step}`, "tick", {})) : final("Done."));
    const result = await runAgent([{ type: "text", text: "Tick along." }, image(bytes)], model, registry, {
      store,
      runId: "long",
      maxSteps: 200,
      tokenBudget: Number.POSITIVE_INFINITY,
    });
    expect(result).toMatchObject({ status: "done", steps: 200 });
    expect(statSync(join(directory, "long.jsonl")).size).toBeLessThan(1024 * 1024);
    expect(readdirSync(join(directory, "long.blobs"))).toEqual([sha256Hex(bytes)]);
    expect(statSync(join(directory, "long.blobs", sha256Hex(bytes))).size).toBe(5 * 1024 * 1024);
    const events = await new JsonlEventStore(directory).read("long");
    expect(replayRun(events).result?.steps).toBe(200);
  });
});
