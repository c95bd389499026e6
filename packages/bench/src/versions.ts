import { readFileSync } from "node:fs";

/** The version of a package installed for the bench, read from its package.json; "?" when not found. */
export function packageVersion(name: string): string {
  try {
    const url = new URL(`../node_modules/${name}/package.json`, import.meta.url);
    const { version } = JSON.parse(readFileSync(url, "utf8")) as { version?: unknown };
    return typeof version === "string" ? version : "?";
  } catch {
    return "?";
  }
}
