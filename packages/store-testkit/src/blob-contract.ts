import { createHash } from "node:crypto";
import {
  asks,
  type ContentPart,
  contentParts,
  continueAgent,
  type EventStore,
  final,
  forkRun,
  replayRun,
  runAgent,
  scriptedModel,
  ToolRegistry,
  tool,
  toolCall,
} from "@agentloop/core";
import type { StoredEvent } from "@agentloop/core/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { logError } from "./log-error.js";

/** Hooks into where a store keeps a run's blobs, as a lost or damaged file would reach them. */
export interface BlobHooks {
  /** The SHA-256 of each blob the store keeps for the run. */
  held(runId: string): string[] | Promise<string[]>;
  /** Removes one of the run's blobs. */
  remove(runId: string, sha256: string): void | Promise<void>;
  /** Changes one byte of one of the run's blobs, keeping its length. */
  alter(runId: string, sha256: string): void | Promise<void>;
  /** Rewrites the run's event at 0-based `position` as stored (its JSON text) through `edit`. */
  editEvent(runId: string, position: number, edit: (text: string) => string): void | Promise<void>;
}

/** A fresh store for one test of the blob cases, with the hooks into its blobs where it has them. */
export interface BlobHarness {
  readonly store: EventStore;
  readonly blobs?: BlobHooks;
  close?(): void | Promise<void>;
}

/** Deterministic bytes that start as a PNG does: `size` of them, patterned by `seed`. */
export function sampleImage(size: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let index = 0; index < size; index++) bytes[index] = (index * 31 + seed * 17 + (index >> 8)) & 0xff;
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].slice(0, size));
  return bytes;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

const PHOTO = sampleImage(3000, 1);
const SECOND = sampleImage(2000, 2);
const CAT = "https://example.com/cat.jpg";
const TASK: ContentPart[] = [
  { type: "text", text: "What is in these?" },
  { type: "image", mediaType: "image/png", data: PHOTO },
  { type: "image", mediaType: "image/jpeg", data: new URL(CAT) },
];

function screenshots(): ToolRegistry {
  return new ToolRegistry([
    tool({
      name: "screenshot",
      description: "Takes a screenshot.",
      parameters: { type: "object", properties: {} },
      // The same bytes as the task's: kept once.
      execute: () => contentParts([{ type: "image", mediaType: "image/png", data: PHOTO }]),
    }),
  ]);
}

/** A run whose task and a tool's result hold the same image, and whose next turn holds another. */
async function runWithImages(store: EventStore, runId: string) {
  const registry = screenshots();
  const live = await runAgent(TASK, scriptedModel([asks(toolCall("c1", "screenshot")), final("A cat.")]), registry, {
    store,
    runId,
  });
  const next: ContentPart[] = [
    { type: "text", text: "And this?" },
    { type: "image", mediaType: "image/png", data: SECOND },
  ];
  const continued = await continueAgent(runId, next, scriptedModel([final("A dot.")]), registry, { store });
  return { live, continued };
}

function dataOf(content: unknown, index: number): unknown {
  return (content as readonly { data?: unknown }[])[index]?.data;
}

/** The blob cases of the store contract: run by `describeEventStore`, and the damage cases where the store gives hooks. */
export function describeBlobContract(name: string, make: () => Promise<BlobHarness>, damages = false): void {
  describe(`${name} keeps a part's bytes once by hash and refuses a missing or changed blob`, () => {
    let harness: BlobHarness;
    beforeEach(async () => {
      harness = await make();
    });
    afterEach(() => harness.close?.());

    it("reads back the bytes of the task, a tool's result and a continued message, a URL as it is, once each", async () => {
      const { store, blobs } = harness;
      const { continued } = await runWithImages(store, "pictures");
      const events = await store.read("pictures");
      const started = events[0] as Extract<StoredEvent, { type: "run.started" }>;
      expect(dataOf(started.settings.task, 1)).toBe(base64(PHOTO));
      expect(dataOf(started.settings.task, 2)).toBe(CAT);
      const finished = events.find((event) => event.type === "tool.finished");
      expect(dataOf(finished?.type === "tool.finished" ? finished.content : [], 0)).toBe(base64(PHOTO));
      const messaged = events.find((event) => event.type === "user.messaged");
      expect(dataOf(messaged?.type === "user.messaged" ? messaged.content : [], 1)).toBe(base64(SECOND));
      const { runId: _runId, ...result } = continued;
      expect(replayRun(events).result).toEqual(result);
      expect((await store.list())[0]?.task).toBe("What is in these?\n[image image/png]\n[image image/jpeg]");
      if (blobs !== undefined)
        expect((await blobs.held("pictures")).sort()).toEqual([sha256(PHOTO), sha256(SECOND)].sort());
    });

    it("a fork of the run keeps the bytes it copies as its own blobs", async () => {
      const { store, blobs } = harness;
      await runWithImages(store, "pictures");
      await forkRun(store, "pictures", { runId: "fork", keep: 3 });
      const [started] = await store.read("fork");
      expect(dataOf(started?.type === "run.started" ? started.settings.task : [], 1)).toBe(base64(PHOTO));
      if (blobs !== undefined) expect(await blobs.held("fork")).toEqual([sha256(PHOTO)]);
    });

    if (!damages) return;
    const broken = [
      ["a missing blob", (hooks: BlobHooks) => hooks.remove("pictures", sha256(PHOTO)), "which is missing from"],
      ["a blob whose bytes changed", (hooks: BlobHooks) => hooks.alter("pictures", sha256(PHOTO)), "do not match"],
    ] as const;
    for (const [what, damage, says] of broken) {
      it(`refuses ${what} in one line naming the run, the event and the hash, and loses nothing`, async () => {
        const { store, blobs } = withHooks(harness);
        await runWithImages(store, "pictures");
        await runWithImages(store, "other");
        const other = await store.read("other");
        await damage(blobs);
        const error = await logError(store.read("pictures"));
        expect(error).toMatchObject({ runId: "pictures", position: 0, intact: [] });
        expect(error.message).not.toContain("\n");
        expect(error.message).toContain(
          `run 'pictures': event 0 refers to blob sha256:${sha256(PHOTO)} (image/png, 3000 bytes)`,
        );
        expect(error.message).toContain(says);
        // The same refusal again: reading changed nothing; the other run is whole.
        expect((await logError(store.read("pictures"))).message).toBe(error.message);
        expect(await store.read("other")).toEqual(other);
      });
    }

    it("refuses an event whose blob reference was changed as a changed event, naming the hash it holds", async () => {
      const { store, blobs } = withHooks(harness);
      await runWithImages(store, "pictures");
      await blobs.editEvent("pictures", 0, (text) => text.replace(sha256(PHOTO), sha256(SECOND)));
      const error = await logError(store.read("pictures"));
      expect(error).toMatchObject({ runId: "pictures", position: 0 });
      expect(error.message).not.toContain("\n");
      expect(error.message).toContain(
        `run 'pictures': event 0 does not match its hash (it refers to blob sha256:${sha256(SECOND)})`,
      );
    });
  });
}

function withHooks(harness: BlobHarness): BlobHarness & { readonly blobs: BlobHooks } {
  const { blobs } = harness;
  if (blobs === undefined) throw new Error("the store's harness gives no blob hooks");
  return { ...harness, blobs };
}
