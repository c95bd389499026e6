/**
 * SHA-256 of bytes, as 64 lowercase hex digits: what names a part's bytes in a log (a blob). On
 * Node it is `node:crypto`'s, reached through `process.getBuiltinModule` so that no module of core
 * imports `node:` (a bundle for the browser stays free of it); elsewhere a plain implementation of
 * FIPS 180-4 gives the same digest, synchronously.
 */

type NodeHash = (bytes: Uint8Array) => string;

const nodeHash: NodeHash | null = (() => {
  const node = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const crypto = node?.getBuiltinModule?.("node:crypto") as
    | { createHash(name: string): { update(data: Uint8Array): { digest(encoding: "hex"): string } } }
    | undefined;
  return crypto === undefined ? null : (bytes) => crypto.createHash("sha256").update(bytes).digest("hex");
})();

/** The SHA-256 of `bytes`, in hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return nodeHash === null ? plainSha256Hex(bytes) : nodeHash(bytes);
}

/** Whether `value` is a SHA-256 in hex: 64 lowercase hex digits. */
export function isSha256(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** SHA-256 in plain JavaScript (FIPS 180-4), for where `node:crypto` is not at hand. */
export function plainSha256Hex(bytes: Uint8Array): string {
  // The message, a 1 bit, zeros, and its length in bits: a whole number of 64-byte blocks.
  const blocks = Math.ceil((bytes.byteLength + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(bytes);
  padded[bytes.byteLength] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bytes.byteLength / 0x20000000));
  view.setUint32(padded.length - 4, (bytes.byteLength * 8) >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block + t * 4);
    for (let t = 16; t < 64; t++) {
      const early = w[t - 15] ?? 0;
      const late = w[t - 2] ?? 0;
      const s0 = rotr(early, 7) ^ rotr(early, 18) ^ (early >>> 3);
      const s1 = rotr(late, 17) ^ rotr(late, 19) ^ (late >>> 10);
      w[t] = ((w[t - 16] ?? 0) + s0 + (w[t - 7] ?? 0) + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = [h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]].map((word) => word ?? 0) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    for (let t = 0; t < 64; t++) {
      const t1 =
        (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + (K[t] ?? 0) + (w[t] ?? 0)) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    const next = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) h[i] = ((h[i] ?? 0) + (next[i] ?? 0)) >>> 0;
  }
  return Array.from(h, (word) => word.toString(16).padStart(8, "0")).join("");
}

function rotr(value: number, bits: number): number {
  return (value >>> bits) | (value << (32 - bits));
}
