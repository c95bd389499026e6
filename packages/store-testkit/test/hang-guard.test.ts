import { beforeEach, describe, expect, it, vi } from "vitest";

const machine = vi.hoisted(() => ({ load: 0, cores: 2 }));
vi.mock("node:os", async (original) => ({
  ...(await original<typeof import("node:os")>()),
  loadavg: () => [machine.load, 0, 0],
  availableParallelism: () => machine.cores,
}));

const { hangGuard } = await import("../src/hang-guard.js");

describe("hangGuard: a test's time limit grows with the machine's load", () => {
  beforeEach(() => {
    machine.cores = 2;
  });

  it("keeps the limit on a machine with a runnable process per core or fewer", () => {
    for (const load of [0, 0.5, 2]) {
      machine.load = load;
      expect(hangGuard(60_000)).toBe(60_000);
    }
  });

  it("multiplies it by the runnable processes per core", () => {
    machine.load = 5;
    expect(hangGuard(60_000)).toBe(150_000);
    machine.cores = 8;
    machine.load = 24;
    expect(hangGuard(45_000)).toBe(135_000);
  });

  it("stops at ten times, so a hang is still caught on the busiest machine", () => {
    machine.load = 400;
    expect(hangGuard(60_000)).toBe(600_000);
  });

  it("reads the load when it is asked, not once", () => {
    machine.load = 2;
    const quiet = hangGuard(1_000);
    machine.load = 8;
    expect([quiet, hangGuard(1_000)]).toEqual([1_000, 4_000]);
  });
});
