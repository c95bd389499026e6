import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * Ports for servers that must be told their port before they bind it (a Restate server's three
 * listeners, a service process started again on the address Restate knows it by).
 *
 * A port the kernel handed out for `listen(0)` and released is back in the ephemeral range, where
 * the kernel hands it out again to any other `listen(0)` or outgoing connection in the meantime.
 * These ports come from below that range instead, which the kernel never hands out by itself, and
 * each process takes them from its own slice (a vitest worker's `VITEST_POOL_ID`, else its pid), so
 * two test files running side by side never pick the same one. Each is checked by binding it once,
 * and never handed out twice by one process.
 */
const SLICE = 500;
/** Where the slices start: above the ports that well-known local services use. */
const FIRST = 10_000;
const handedOut = new Set<number>();
let cursor = -1;

/** The kernel's ephemeral range, from `/proc` on Linux; the usual default elsewhere. */
function ephemeralRange(): readonly [number, number] {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (low !== undefined && high !== undefined && Number.isSafeInteger(low) && Number.isSafeInteger(high)) {
      return [low, high];
    }
  } catch {
    // not Linux: the default below
  }
  return [32_768, 60_999];
}

/** This process's slice of the ports below the ephemeral range: `[first, first + SLICE)`. */
function slice(): number {
  const [low] = ephemeralRange();
  const slices = Math.max(Math.floor((low - FIRST) / SLICE), 1);
  const pool = Number(process.env.VITEST_POOL_ID);
  const index = Number.isSafeInteger(pool) && pool > 0 ? pool : process.pid;
  return FIRST + (index % slices) * SLICE;
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * A port of 127.0.0.1 that is free, that this process has not handed out before, and that no other
 * process takes unasked before the caller binds it (see above). Rejects, naming the range, when
 * this process's slice has no free port left.
 */
export async function freePort(): Promise<number> {
  const first = slice();
  if (cursor < 0) cursor = process.pid % SLICE;
  for (let tried = 0; tried < SLICE; tried++) {
    cursor = (cursor + 1) % SLICE;
    const port = first + cursor;
    if (handedOut.has(port)) continue;
    if (await canBind(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(
    `no free port left in 127.0.0.1:${first}-${first + SLICE - 1}, this process's range for test servers`,
  );
}
