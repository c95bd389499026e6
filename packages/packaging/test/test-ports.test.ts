import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./npm-project.js";

// A port found free by binding port 0 and closing the server is back in the kernel's ephemeral
// range, which hands it to any other listen(0) or outgoing connection before the caller binds it:
// a test server that was started on it fails by chance. Servers bind port 0 themselves and report
// their port; a server that must be told its port takes one from `freePort` of
// `@agentloop/store-testkit/servers`, which picks below that range.
const CHOSEN_THEN_CLOSED = /listen\(\s*(?:0|\{\s*port:\s*0)[\s\S]{0,300}?\.close\(\s*\(\)\s*=>\s*resolve\(\s*port/g;
// freePort itself, and this check's own sample of what it refuses.
const ALLOWED = new Set([
  "packages/store-testkit/src/servers/free-port.ts",
  "packages/packaging/fixtures/picks-a-port.ts",
]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(?:ts|mts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

/** Each place that picks a port by binding port 0 and closing the server again, as `file:line`. */
function portPickers(files: readonly string[]): string[] {
  return files.flatMap((file) => {
    const text = readFileSync(file, "utf8");
    return [...text.matchAll(CHOSEN_THEN_CLOSED)].map(
      (match) => `${relative(ROOT, file)}:${text.slice(0, match.index).split("\n").length}`,
    );
  });
}

describe("no test picks a port that another process may take before it is bound", () => {
  const files = sources(join(ROOT, "packages")).concat(sources(join(ROOT, "scripts")));

  it("reads the packages' sources and tests", () => {
    expect(files.some((file) => file.endsWith("restate-server.ts"))).toBe(true);
    expect(files.length).toBeGreaterThan(400);
  });

  it("only freePort binds port 0 to close it and hand the port on", () => {
    expect(portPickers(files).filter((place) => !ALLOWED.has(place.replace(/:\d+$/, "")))).toEqual([]);
  });

  it("the check sees such a place", () => {
    const sample = join(ROOT, "packages", "packaging", "fixtures", "picks-a-port.ts");
    expect(portPickers([sample])).toEqual(["packages/packaging/fixtures/picks-a-port.ts:5"]);
  });
});
