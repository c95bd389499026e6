import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closedFolderOnTheWay, closedFolderReason } from "../src/servers/test-postgres.js";

const top = mkdtempSync(join(tmpdir(), "closed-folder-"));
afterAll(() => {
  chmodSync(top, 0o700);
  rmSync(top, { recursive: true, force: true });
});

describe("the folders on the way to PostgreSQL's binaries", () => {
  it("names the outermost folder that others cannot enter, with its mode", () => {
    const inner = join(top, "clone", "node_modules");
    mkdirSync(inner, { recursive: true });
    chmodSync(top, 0o700);
    expect(closedFolderOnTheWay(inner)).toEqual({ folder: top, mode: "0700" });
    chmodSync(join(top, "clone"), 0o750);
    expect(closedFolderOnTheWay(inner)).toEqual({ folder: top, mode: "0700" });
    chmodSync(top, 0o755);
    expect(closedFolderOnTheWay(inner)).toEqual({ folder: join(top, "clone"), mode: "0750" });
    chmodSync(join(top, "clone"), 0o755);
    expect(closedFolderOnTheWay(inner)).toBeUndefined();
  });

  it("says why PostgreSQL cannot start and what to do, instead of an unhandled spawn EACCES", () => {
    const inner = join(top, "closed", "bin");
    mkdirSync(inner, { recursive: true });
    chmodSync(top, 0o755);
    chmodSync(join(top, "closed"), 0o700);
    const reason = closedFolderReason(inner);
    expect(reason).toContain(`cannot enter ${join(top, "closed")} (mode 0700)`);
    expect(reason).toContain(`chmod o+x ${join(top, "closed")}`);
    expect(reason).toContain("on the way to its binaries");
    expect(reason).toContain("AGENTLOOP_TEST_POSTGRES");
    expect(closedFolderReason(inner, "its data folder (under TMPDIR)")).toContain("on the way to its data folder");
    chmodSync(join(top, "closed"), 0o755);
    expect(closedFolderReason(inner)).toBeUndefined();
  });
});
