import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMainThread } from "node:worker_threads";

/**
 * Ports for servers that must be told their port before they bind it (a Restate server's three
 * listeners, a service process started again on the address Restate knows it by).
 *
 * A port the kernel handed out for `listen(0)` and released is back in the ephemeral range, where
 * the kernel hands it out again to any other `listen(0)` or outgoing connection in the meantime.
 * These ports come from below that range instead, which the kernel never hands out by itself, and
 * each process takes them from its own slice, so two test files running side by side never pick the
 * same one. A slice is claimed by a file in the temp folder naming who holds it (a vitest worker's
 * `VITEST_POOL_ID` under its test run's process, else the process itself), so two test runs on one
 * machine (two clones) never share one either; a claim whose holder is dead is taken over. Each
 * port is checked by binding it once, and never handed out twice by one process.
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

/** Who holds a slice: a vitest worker's pool id under its run's process, or this process. */
export interface SliceHolder {
  /** The process whose life the claim lasts: the test run's, for a vitest worker. */
  readonly pid: number;
  readonly pool: number;
}

function holder(): SliceHolder {
  const pool = Number(process.env.VITEST_POOL_ID);
  if (!Number.isSafeInteger(pool) || pool <= 0) return { pid: process.pid, pool: 0 };
  // a forked worker's run is its parent; a worker thread's is its own process
  return { pid: isMainThread ? process.ppid : process.pid, pool };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(file: string): SliceHolder | undefined {
  try {
    const [pid, pool] = readFileSync(file, "utf8").trim().split(" ").map(Number);
    return pid !== undefined && pool !== undefined && Number.isSafeInteger(pid) && Number.isSafeInteger(pool)
      ? { pid, pool }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the claim file if no one has one; false when it exists. */
function create(file: string, claim: SliceHolder): boolean {
  try {
    const fd = openSync(file, "wx");
    writeSync(fd, `${claim.pid} ${claim.pool}\n`);
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/**
 * The index of the slice `claim` holds among `slices`, claimed in `folder` if it holds none: the
 * one its pool id points at when free, else the next free one. A claim file whose holder is dead is
 * taken over. Exported for its test.
 */
export function claimSlice(folder: string, claim: SliceHolder, slices: number): number {
  mkdirSync(folder, { recursive: true });
  const first = (claim.pool > 0 ? claim.pool : claim.pid) % slices;
  for (let tried = 0; tried < slices; tried++) {
    const index = (first + tried) % slices;
    const file = join(folder, `${index}.claim`);
    if (create(file, claim)) return index;
    const held = readHolder(file);
    if (held && held.pid === claim.pid && held.pool === claim.pool) return index;
    if (held && alive(held.pid)) continue;
    // a dead holder's claim, or a torn one: take it over unless another did first
    try {
      unlinkSync(file);
    } catch {
      // another took it over first
    }
    if (create(file, claim)) return index;
  }
  throw new Error(`every slice of test ports in ${folder} is claimed by a live test run`);
}

const CLAIMS = join(tmpdir(), "agentloop-test-ports");
let claimed: number | undefined;

/** This process's slice of the ports below the ephemeral range: `[first, first + SLICE)`. */
function slice(): number {
  if (claimed === undefined) {
    const [low] = ephemeralRange();
    const slices = Math.max(Math.floor((low - FIRST) / SLICE), 1);
    const claim = holder();
    const index = claimSlice(CLAIMS, claim, slices);
    if (claim.pid === process.pid && isMainThread) {
      process.once("exit", () => {
        try {
          unlinkSync(join(CLAIMS, `${index}.claim`));
        } catch {
          // gone already
        }
      });
    }
    claimed = FIRST + index * SLICE;
  }
  return claimed;
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
