import { describe, expect, it } from "vitest";
import { programName } from "./program-name.js";

const pnpm = { npm_config_user_agent: "pnpm/12.4.2 npm/? node/v20.20.2 linux x64" };
const npm = { npm_config_user_agent: "npm/11.6.2 node/v20.20.2 linux x64 workspaces/false", npm_command: "exec" };

describe("programName: the words that start agentloop again as the user started it", () => {
  it.each([
    [
      "a script run by path, below the working directory",
      "/repo/packages/cli/dist/main.js",
      {},
      "node packages/cli/dist/main.js",
    ],
    ["a script run by path, elsewhere", "/opt/agent loop/main.js", {}, "node '/opt/agent loop/main.js'"],
    ["a global npm install (its link on PATH)", "/usr/local/bin/agentloop", {}, "agentloop"],
    [
      "a global pnpm install (its shim starts the file)",
      "/root/.local/share/pnpm/global/5/node_modules/@agentloop/cli/dist/main.js",
      pnpm,
      "agentloop",
    ],
    ["npx in a project with a local install", "/repo/app/node_modules/.bin/agentloop", npm, "npx agentloop"],
    [
      "an npm script of the project",
      "/repo/app/node_modules/.bin/agentloop",
      { ...npm, npm_command: "run-script" },
      "npx agentloop",
    ],
    [
      "pnpm exec in a project (pnpm's shim starts the file)",
      "/repo/app/node_modules/.pnpm/@agentloop+cli@0.1.0/node_modules/@agentloop/cli/dist/main.js",
      pnpm,
      "pnpm exec agentloop",
    ],
    ["pnpm exec through a linked bin", "/repo/app/node_modules/.bin/agentloop", pnpm, "pnpm exec agentloop"],
    [
      "yarn",
      "/repo/app/node_modules/.bin/agentloop",
      { npm_config_user_agent: "yarn/4.9.0 npm/? node/v20" },
      "yarn agentloop",
    ],
    [
      "npx fetching the package for one run",
      "/root/.npm/_npx/1a2b3c/node_modules/.bin/agentloop",
      npm,
      "npx @agentloop/cli",
    ],
    [
      "pnpm dlx",
      "/root/.cache/pnpm/dlx/abc/node_modules/.pnpm/@agentloop+cli@0.1.0/node_modules/@agentloop/cli/dist/main.js",
      pnpm,
      "pnpm dlx @agentloop/cli",
    ],
  ])("%s", (_way, script, env, expected) => {
    expect(programName({ script, cwd: "/repo", env })).toBe(expected);
  });
});
