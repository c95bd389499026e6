import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { claimSlice, freePort } from "../src/servers/free-port.js";

const folder = mkdtempSync(join(tmpdir(), "port-claims-"));
const sleepers: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const child of sleepers) child.kill("SIGKILL");
  rmSync(folder, { recursive: true, force: true });
});

/** A live process that is not this one: another test run's. */
function liveProcess(): number {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  sleepers.push(child);
  return child.pid as number;
}

async function deadProcess(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid as number;
}

describe("freePort's slices", () => {
  it("gives two test runs' workers of one pool id two slices, and one worker the same slice again", () => {
    const dir = join(folder, "runs");
    const first = claimSlice(dir, { pid: process.pid, pool: 1 }, 40);
    const other = claimSlice(dir, { pid: liveProcess(), pool: 1 }, 40);
    expect(first).toBe(1);
    expect(other).not.toBe(first);
    expect(claimSlice(dir, { pid: process.pid, pool: 1 }, 40)).toBe(first);
    const second = claimSlice(dir, { pid: process.pid, pool: 2 }, 40);
    expect([first, other]).not.toContain(second);
  });

  it("takes over the slice of a run that died, and of a torn claim file", async () => {
    const dir = join(folder, "dead");
    const dead = await deadProcess();
    expect(claimSlice(dir, { pid: dead, pool: 3 }, 40)).toBe(3);
    expect(claimSlice(dir, { pid: process.pid, pool: 3 }, 40)).toBe(3);
    expect(readFileSync(join(dir, "3.claim"), "utf8")).toBe(`${process.pid} 3\n`);
    writeFileSync(join(dir, "4.claim"), "torn");
    expect(claimSlice(dir, { pid: process.pid, pool: 4 }, 40)).toBe(4);
  });

  it("refuses in one line when every slice is held by a live run", () => {
    const dir = join(folder, "full");
    const other = liveProcess();
    claimSlice(dir, { pid: other, pool: 1 }, 2);
    claimSlice(dir, { pid: other, pool: 2 }, 2);
    expect(() => claimSlice(dir, { pid: process.pid, pool: 1 }, 2)).toThrow(
      /every slice of test ports in .* is claimed by a live test run/,
    );
  });

  it("hands out distinct ports that bind", async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) expect(port).toBeGreaterThanOrEqual(10_000);
  });
});
