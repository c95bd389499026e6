import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The single list of test projects: every package with a vitest.config.ts, named by its folder. */
export function packagesWithTests(): { dir: string; name: string }[] {
  const root = fileURLToPath(new URL("packages", import.meta.url));
  return readdirSync(root)
    .filter((name) => existsSync(join(root, name, "vitest.config.ts")))
    .map((name) => ({ dir: join(root, name), name }));
}
