/**
 * The hash chain that binds each logged event to its run and to the event before it: an event's
 * `hash` is `chainHash(previous, text)`, where `text` is the event's JSON without its hash and
 * `previous` is the hash of the event before it, or `runHashSeed(runId)` for the first. A byte
 * changed inside an event, an event dropped, moved or copied from another run's log breaks it.
 *
 * It guards against damage, not against someone who rewrites the log on purpose (who can rewrite
 * the hashes too): a 53-bit non-cryptographic hash (cyrb53), portable and synchronous, at about
 * a nanosecond per character.
 */

/** The hash the chain of run `runId` starts from. */
export function runHashSeed(runId: string): string {
  return hash53(`agentloop run ${runId}`);
}

/** The hash of an event whose JSON (without its hash) is `text`, after an event whose hash is `previous`. */
export function chainHash(previous: string, text: string): string {
  return hash53(`${previous}\n${text}`);
}

/** Whether `value` looks like a hash this chain makes: 14 lowercase hex digits. */
export function isChainHash(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{14}$/.test(value);
}

function hash53(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, "0");
}
