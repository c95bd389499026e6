import { base64Bytes, bytesBase64, isPlainObject, type StoredEvent } from "../data/index.js";
import { isSha256, sha256Hex } from "./sha256.js";

/**
 * Blobs: the bytes of an image or file part are kept once per run, by their SHA-256, beside the
 * log, and the logged event holds `{ sha256, bytes }` in the part's `data` instead of base64. A
 * store writes `loggedEvent(event).event` and its `blobs`, and reads the log back through
 * `parseEventLog(runId, values, source)`, which puts the bytes back and checks them against their
 * hash. An event without bytes (text, a URL part) is logged exactly as it is.
 */

/** A part's bytes as an event logs them: their SHA-256 (hex) and their length. */
export interface BlobRef {
  readonly sha256: string;
  readonly bytes: number;
}

/** An event as a store writes it, and the blobs it refers to, by hash. */
export interface LoggedEvent {
  /** The event with each part's bytes swapped for a `BlobRef`: the event itself when it holds no bytes. */
  readonly event: Readonly<Record<string, unknown>>;
  readonly blobs: ReadonlyMap<string, Uint8Array>;
}

/** How a store reads a run's blobs back, for `parseEventLog`. */
export interface BlobSource {
  /** The bytes stored under `sha256`, or undefined when the store holds none. */
  read(sha256: string): Uint8Array | undefined;
  /** Where the blobs are, for an error that names it: "the folder /runs/run-1.blobs". */
  readonly where: string;
}

type Json = Readonly<Record<string, unknown>>;

// The last parts swapped, by their base64: an event is swapped when it is stamped and again when a
// store writes it, and is hashed once. Two only: each entry keeps its text (up to 67 MB) alive.
const recent = new Map<string, BlobRef>();

const NO_BLOBS: ReadonlyMap<string, Uint8Array> = new Map();

/** The event as a store writes it (each part's bytes swapped for their `BlobRef`), and the blobs to keep. */
export function loggedEvent(event: StoredEvent | Json): LoggedEvent {
  // Most events hold no content that can have parts: they are logged as they are, with nothing made.
  if (!mayHoldParts(event as Json)) return { event: event as Json, blobs: NO_BLOBS };
  const blobs = new Map<string, Uint8Array>();
  const swapped = mapContents(event as Json, (part) => {
    const data = part.data;
    if (typeof data !== "string" || data.includes(":")) return part; // a URL is never a blob
    let ref = recent.get(data);
    const bytes = base64Bytes(data);
    if (ref === undefined) {
      ref = { sha256: sha256Hex(bytes), bytes: bytes.byteLength };
      if (recent.size >= 2) recent.delete(recent.keys().next().value as string);
      recent.set(data, ref);
    }
    blobs.set(ref.sha256, bytes);
    return { ...part, data: ref };
  });
  return { event: swapped, blobs };
}

/** A one-line reason a logged event's blobs cannot be put back, or the event with its parts' bytes as base64. */
export type Restored = { readonly event: Json } | { readonly problem: string };

/**
 * `logged` with each `BlobRef` replaced by its bytes in base64, read from `source` and checked
 * against the hash; `known` keeps what was read by hash, so a blob logged in many events is read once.
 */
export function restoreBlobs(logged: Json, source: BlobSource | undefined, known: Map<string, string>): Restored {
  let problem: string | null = null;
  const event = mapContents(logged, (part) => {
    const ref = part.data;
    if (problem !== null || !isBlobRef(ref)) return part;
    let base64 = known.get(ref.sha256);
    if (base64 === undefined) {
      const named = `blob sha256:${ref.sha256} (${String(part.mediaType)}, ${ref.bytes} bytes)`;
      const bytes = source?.read(ref.sha256);
      if (source === undefined) problem = `refers to ${named}, and was read without the run's blobs`;
      else if (bytes === undefined) problem = `refers to ${named}, which is missing from ${source.where}`;
      else if (bytes.byteLength !== ref.bytes || sha256Hex(bytes) !== ref.sha256) {
        problem = `refers to ${named}, whose bytes in ${source.where} do not match that hash: the blob was changed after it was written`;
      }
      if (problem !== null || bytes === undefined) return part;
      base64 = bytesBase64(bytes);
      known.set(ref.sha256, base64);
    }
    return { ...part, data: base64 };
  });
  return problem === null ? { event } : { problem };
}

/** Whether `value` is a part's `data` as logged by hash: `{ sha256, bytes }`. */
export function isBlobRef(value: unknown): value is BlobRef {
  return (
    isPlainObject(value) &&
    isSha256(value.sha256) &&
    Number.isSafeInteger(value.bytes) &&
    (value.bytes as number) >= 0 &&
    Object.keys(value).length === 2
  );
}

/** The blob references of a logged event, in order, with each part's media type: what `show` and the report name. */
export function blobRefsOf(logged: Json): { readonly ref: BlobRef; readonly mediaType: string }[] {
  const refs: { ref: BlobRef; mediaType: string }[] = [];
  mapContents(logged, (part) => {
    if (isBlobRef(part.data)) refs.push({ ref: part.data, mediaType: String(part.mediaType) });
    return part;
  });
  return refs;
}

/**
 * `event` with `map` applied to each image or file part of each content it holds (the task and a
 * carried-over conversation in `run.started`, a continued message, a tool's result), keys in
 * their order; the event itself when nothing changed.
 */
function mapContents(event: Json, map: (part: Json) => Json): Json {
  const content = (value: unknown): unknown => {
    if (!Array.isArray(value)) return value;
    const parts = value.map((part: unknown) =>
      isPlainObject(part) && (part.type === "image" || part.type === "file") ? map(part) : part,
    );
    return parts.every((part, index) => part === value[index]) ? value : parts;
  };
  switch (event.type) {
    case "user.messaged":
    case "tool.finished":
      return withValue(event, "content", content(event.content));
    case "run.started": {
      const settings = event.settings;
      if (!isPlainObject(settings)) return event;
      let next = withValue(settings, "task", content(settings.task));
      const history = settings.history;
      if (Array.isArray(history)) {
        const messages = history.map((message: unknown) =>
          isPlainObject(message) ? withValue(message, "content", content(message.content)) : message,
        );
        if (messages.some((message, index) => message !== history[index])) next = { ...next, history: messages };
      }
      return next === settings ? event : { ...event, settings: next };
    }
    case "run.anchored": {
      const started = isPlainObject(event.started) ? mapContents(event.started, map) : event.started;
      const state = event.state;
      const messages = isPlainObject(state) && Array.isArray(state.messages) ? state.messages : [];
      const mapped = messages.map((message: unknown) =>
        isPlainObject(message) ? withValue(message, "content", content(message.content)) : message,
      );
      const changed = mapped.some((message, index) => message !== messages[index]);
      const next = withValue(event, "started", started);
      return changed ? { ...next, state: { ...(state as Json), messages: mapped } } : next;
    }
    default:
      return event;
  }
}

/** Whether `mapContents` could find a part in `event`: a content given as parts, or the settings of `run.started`. */
function mayHoldParts(event: Json): boolean {
  switch (event.type) {
    case "user.messaged":
    case "tool.finished":
      return Array.isArray(event.content);
    case "run.started":
    case "run.anchored":
      return true;
    default:
      return false;
  }
}

function withValue(object: Json, key: string, value: unknown): Json {
  return object[key] === value ? object : { ...object, [key]: value };
}
