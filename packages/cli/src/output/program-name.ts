import { basename, dirname, isAbsolute, relative, sep } from "node:path";
import { shellQuote } from "./hints.js";

/** How this process was started: its script (`process.argv[1]`), working directory and environment. */
export interface StartedAs {
  readonly script: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * The words that start agentloop again the way the user started it, for hints that run as printed:
 * `node <path>` for a script run by path, `npx @agentloop/cli` for a package npx fetched,
 * `pnpm exec agentloop` / `npx agentloop` / `yarn agentloop` / `bunx agentloop` for a project's
 * local install (by the package manager that started it), `agentloop` for a global install.
 */
export function programName({ script, cwd, env }: StartedAs): string {
  const path = script.split(sep).join("/");
  const linked = basename(script) === "agentloop";
  // npm links a bin (`node_modules/.bin/agentloop`); pnpm's shims start the package's file itself.
  const installed = linked
    ? dirname(path).endsWith("/node_modules/.bin")
    : path.includes("/node_modules/@agentloop/cli/");
  if (!installed) return linked ? "agentloop" : `node ${shellQuote(shown(script, cwd))}`;
  // A package fetched for one run (npx's cache, pnpm dlx's) is not installed: name the package.
  if (path.includes("/_npx/")) return "npx @agentloop/cli";
  if (path.includes("/dlx/")) return "pnpm dlx @agentloop/cli";
  if (path.includes("/global/") || path.includes("/lib/node_modules/")) return "agentloop";
  const agent = (env.npm_config_user_agent ?? "").split("/")[0];
  if (agent === "pnpm") return "pnpm exec agentloop";
  if (agent === "yarn") return "yarn agentloop";
  if (agent === "bun") return "bunx agentloop";
  return "npx agentloop";
}

/** The script's path as the user can type it: relative to the working directory when it is below it. */
function shown(script: string, cwd: string): string {
  const near = relative(cwd, script);
  return near.startsWith("..") || isAbsolute(near) ? script : near;
}
