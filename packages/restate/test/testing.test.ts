import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { freePort, startRestateServer } from "../src/testing/index.js";

const FAKE = fileURLToPath(new URL("./fixtures/fake-restate-server.mjs", import.meta.url));

function ephemeralLow(): number {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  } catch {
    return 32_768;
  }
}

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

describe("freePort", () => {
  it("hands out ports below the kernel's ephemeral range, which listen(0) and outgoing connections never take", async () => {
    const low = ephemeralLow();
    const ports = [await freePort(), await freePort(), await freePort()];
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
    }
  });

  it("never hands out one port twice in a process, and skips a port another server holds", async () => {
    const seen = new Set<number>();
    for (let index = 0; index < 20; index++) seen.add(await freePort());
    expect(seen.size).toBe(20);
    // The next port of this process's slice, held by a server: freePort passes it by.
    const next = Math.max(...seen) + 1;
    const holder = await listen(next).catch(() => null);
    try {
      const port = await freePort();
      expect(seen.has(port)).toBe(false);
      if (holder !== null) expect(port).not.toBe(next);
    } finally {
      holder?.close();
    }
  });
});

describe("startRestateServer", () => {
  let dir: string | null = null;
  afterEach(() => {
    vi.unstubAllEnvs();
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  it("rejects at once, saying why and on which ports, when the server binary cannot be started", async () => {
    await expect(startRestateServer({ binary: "/nonexistent/restate-server" })).rejects.toThrow(
      /gave up waiting for the Restate server \(admin 127\.0\.0\.1:\d+, ingress 127\.0\.0\.1:\d+, fabric 127\.0\.0\.1:\d+\) to answer its health checks: restate-server could not be started \(\/nonexistent\/restate-server\): spawn \/nonexistent\/restate-server ENOENT/,
    );
  });

  it("starts again on new ports when one was taken before the server bound it", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentloop-fake-restate-"));
    const log = join(dir, "starts.jsonl");
    writeFileSync(log, "");
    vi.stubEnv("FAKE_RESTATE_LOG", log);
    const server = await startRestateServer({ binary: FAKE });
    try {
      const starts = readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { admin: number; ingress: number; fabric: string });
      expect(starts).toHaveLength(2);
      const [first, second] = starts;
      expect(second?.admin).not.toBe(first?.admin);
      expect(second?.fabric).not.toBe(first?.fabric);
      expect(server.admin).toBe(`http://127.0.0.1:${second?.admin}`);
      expect((await fetch(`${server.admin}/health`)).ok).toBe(true);
    } finally {
      await server.stop();
    }
  });
});
