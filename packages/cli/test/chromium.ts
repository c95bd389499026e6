import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { outputOf } from "./child-output.js";

/** Debian's chromium package; the test fails (never skips) without it. */
export const CHROMIUM = "/usr/bin/chromium";

/** Flags that keep the browser headless, off the network and away from any profile but a new one. */
const OFFLINE_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Throws, with what to do, when Chromium is not installed. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the HTML report test needs it (apt-get update && apt-get install -y chromium)`,
    );
  }
}

/** Opens a local HTML file in headless Chromium with `extra` flags (`--dump-dom`, `--screenshot=...`) and returns its stdout. */
export function openInChromium(file: string, extra: readonly string[]): Promise<string> {
  requireChromium();
  const profile = mkdtempSync(join(tmpdir(), "agentloop-chromium-"));
  const args = [...OFFLINE_FLAGS, `--user-data-dir=${profile}`, ...extra, pathToFileURL(file).href];
  return outputOf(spawn(CHROMIUM, args, { stdio: ["ignore", "pipe", "pipe"] })).then(({ code, stdout, stderr }) => {
    rmSync(profile, { recursive: true, force: true });
    if (code === 0) return stdout;
    throw new Error(`chromium exited with ${code}: ${stderr.slice(-2000)}`);
  });
}
