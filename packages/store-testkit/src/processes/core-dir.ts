import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Core's package directory (holding src/ and dist/), found as a child finds core: by its name, then
 * up from the file it resolves to (dist/index.js, or dist/node/index.js where Node's condition
 * picks the bundled build) to the nearest folder with a package.json.
 */
export function coreDir(): string {
  let dir = dirname(createRequire(import.meta.url).resolve("@agentloop/core"));
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("@agentloop/core resolves to no folder with a package.json");
    dir = parent;
  }
  return dir;
}
