import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  asks,
  contentParts,
  type EventStore,
  final,
  type Model,
  type ModelReply,
  replayRun,
  runAgent,
  ToolRegistry,
  toolCall,
} from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import { parseEventLog, type StoredEvent } from "@agentloop/core/store";
import { bytes, count, machine, millis, progress, ratio, table, title } from "./report.js";

// Parts' bytes in the log (`pnpm --filter @agentloop/bench bench:blobs` after a build): a run whose
// tool returns one image per call, 100 calls, logged by a JsonlEventStore (each image once in the
// run's blobs folder, the line holding its hash) and by a store that keeps no blobs (each image
// inline in its line as base64, as logs were before blobs); the log's size, the blob folder's, and
// the time to read the log back and replay it.
const tiny = process.argv.includes("--tiny");
const images = tiny ? 5 : 100;
const imageBytes = tiny ? 4 * 1024 : 64 * 1024;
const rounds = tiny ? 1 : 7;

/** Deterministic bytes that do not compress: image `index` of the run. */
function picture(index: number): Uint8Array {
  const out = new Uint8Array(imageBytes);
  let state = (index + 1) * 2654435761;
  for (let at = 0; at < out.length; at++) {
    state = (state * 1103515245 + 12345) >>> 0;
    out[at] = state >>> 24;
  }
  return out;
}

/** A store that keeps each event whole in its line, bytes as base64: the log without blobs. */
class InlineStore implements EventStore {
  constructor(readonly directory: string) {}
  async append(runId: string, event: StoredEvent): Promise<void> {
    appendFileSync(join(this.directory, `${runId}.jsonl`), `${JSON.stringify(event)}\n`);
  }
  async read(runId: string): Promise<StoredEvent[]> {
    const path = join(this.directory, `${runId}.jsonl`);
    const text = existsSync(path) ? readFileSync(path, "utf8") : "";
    return parseEventLog(
      runId,
      text
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as unknown),
    );
  }
  async list() {
    return [];
  }
}

async function runInto(store: EventStore): Promise<void> {
  const registry = new ToolRegistry();
  let shot = 0;
  registry.register("snap", "Takes a picture.", { type: "object" }, () =>
    contentParts([{ type: "image", mediaType: "image/png", data: picture(shot++) }]),
  );
  let step = 0;
  const model: Model = (): ModelReply => (++step <= images ? asks(toolCall(`c${step}`, "snap", {})) : final("Done."));
  const result = await runAgent("Take the pictures.", model, registry, {
    store,
    runId: "pictures",
    maxSteps: images + 1,
    tokenBudget: Number.POSITIVE_INFINITY,
  });
  if (result.status !== "done") throw new Error(`the run ended ${result.status}`);
}

/** The median time to read the log back and replay it, in milliseconds. */
async function replayTime(store: EventStore): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    replayRun(await store.read("pictures"));
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN;
}

function folderSize(folder: string): number {
  try {
    return readdirSync(folder).reduce((sum, name) => sum + statSync(join(folder, name)).size, 0);
  } catch {
    return 0;
  }
}

const root = mkdtempSync(join(tmpdir(), "agentloop-bench-blobs-"));
try {
  const [byHash, inline] = ["blobs", "inline"].map((name) => join(root, name)) as [string, string];
  progress(`a run of ${images} images of ${bytes(imageBytes)}, by hash...`);
  const blobStore = new JsonlEventStore(byHash, { durability: "none" });
  await runInto(blobStore);
  progress("the same run, inline...");
  mkdirSync(inline, { recursive: true });
  const inlineStore = new InlineStore(inline);
  await runInto(inlineStore);
  progress(`read back and replayed, ${rounds} rounds each...`);
  const rows = [
    ["by hash (JsonlEventStore)", byHash, blobStore, folderSize(join(byHash, "pictures.blobs"))],
    ["inline base64 (a store without blobs)", inline, inlineStore, 0],
  ] as const;
  const measured = [];
  for (const [label, directory, store, blobs] of rows) {
    measured.push({
      label,
      log: statSync(join(directory, "pictures.jsonl")).size,
      blobs,
      time: await replayTime(store),
    });
  }
  const write = (text: string) => process.stdout.write(`${text}\n`);
  write(`${title("blobs bench", tiny)}\n`);
  write(
    `${machine()}; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}.`,
  );
  write(`${count(images)} images of ${bytes(imageBytes)} each (${bytes(images * imageBytes)}), one per tool call.\n`);
  const inlineLog = measured[1]?.log ?? Number.NaN;
  write(
    table(
      ["log", "log file", "blob folder", "inline log ÷ this log", `read + replay (median of ${rounds})`],
      measured.map((row) => [
        row.label,
        bytes(row.log),
        bytes(row.blobs),
        ratio(inlineLog / row.log),
        millis(row.time),
      ]),
    ),
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
