import { spawn } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { exec, npmProject, packAll, ROOT } from "./npm-project.js";

// slow: it packs every package and installs the tarballs in fresh npm projects.

// Declaration files of other projects that fail `exactOptionalPropertyTypes` on their own (any file
// importing their types gets these errors); listed in docs/typescript.md.
const UPSTREAM_ERRORS = [
  "node_modules/xstate/dist/declarations/src/setup.d.ts",
  "node_modules/@restatedev/restate-sdk-core/dist/serde_api.d.ts",
];

let tarballs: Map<string, string>;

function tarball(name: string): string {
  const file = tarballs.get(name);
  if (file === undefined) throw new Error(`${name} was not packed`);
  return file;
}

beforeAll(async () => {
  tarballs = await packAll();
});

describe("the CLI installed alone with plain npm", () => {
  let app: string;
  const cli = (args: readonly string[], env: NodeJS.ProcessEnv = {}) =>
    exec(process.execPath, [join(app, "node_modules/@agentloop/cli/dist/main.js"), ...args], app, env);

  beforeAll(async () => {
    app = await npmProject(["@agentloop/cli", "@agentloop/core", "@agentloop/mcp"].map(tarball));
    writeFileSync(join(app, "tools.mjs"), "export default () => {};\n");
  });

  it("installs no provider SDK, no SQLite build and no TypeScript loader", () => {
    for (const optional of ["openai", "@anthropic-ai/sdk", "@agentloop/sqlite", "better-sqlite3", "tsx", "esbuild"]) {
      expect(existsSync(join(app, "node_modules", optional)), optional).toBe(false);
    }
  });

  it("ships the chat page of serve --ui-stream built: the page and its assets, no bundler and no React", () => {
    const page = join(app, "node_modules/@agentloop/cli/dist/chat-page");
    const html = readFileSync(join(page, "index.html"), "utf8");
    const assets = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((match) => match[1] ?? "");
    expect(assets.map((asset) => asset.replace(/-[\w-]+\./, "."))).toEqual(["assets/index.js", "assets/index.css"]);
    for (const asset of assets) expect(existsSync(join(page, asset)), asset).toBe(true);
    for (const bundled of ["vite", "react", "react-dom", "@ai-sdk/react"]) {
      expect(existsSync(join(app, "node_modules", bundled)), bundled).toBe(false);
    }
  });

  it("runs the demo", async () => {
    const demo = await cli(["demo"]);
    expect(demo.stderr).toBe("");
    expect(demo.stdout).toContain("answer   It is 86 F in Pune.");
  });

  it("names in one line what a flag needs installed", async () => {
    const openai = await cli(["run", "--tools", "tools.mjs", "--model", "openai:gpt-4o-mini", "hi"], {
      OPENAI_API_KEY: "k",
    });
    expect(openai).toMatchObject({ code: 2, stdout: "" });
    expect(openai.stderr).toBe(
      "agentloop: --model openai:gpt-4o-mini needs @agentloop/openai openai, which is not installed: npm i @agentloop/openai openai\n",
    );
    const sqlite = await cli(["list", "--store", "runs.db"]);
    expect(sqlite.stderr).toBe(
      "agentloop: the SQLite store 'runs.db' needs @agentloop/sqlite, which is not installed: npm i @agentloop/sqlite\n",
    );
    writeFileSync(join(app, "tools.ts"), "export default () => {};\n");
    copyFileSync(join(ROOT, "packages/cli/test/fixtures/weather-script.json"), join(app, "script.json"));
    const ts = await cli(["run", "--tools", "tools.ts", "--script", "script.json", "hi"]);
    expect(ts.stderr).toBe("agentloop: tools module 'tools.ts' needs tsx, which is not installed: npm i tsx\n");
  });
});

describe("every published package installed with plain npm", () => {
  let app: string;

  beforeAll(async () => {
    // Install scripts are skipped: better-sqlite3's native build is not what this checks, and takes minutes.
    app = await npmProject([...tarballs.values(), "@types/node@^20.19.0"], ["--ignore-scripts"]);
    for (const file of ["app.ts", "app.mjs", "tsconfig.json"]) {
      copyFileSync(join(import.meta.dirname, "../fixtures", file), join(app, file));
    }
  });

  it("typechecks a strict TypeScript app without skipLibCheck, where only other projects' declarations fail", async () => {
    const tsc = await exec(
      process.execPath,
      [join(import.meta.dirname, "../node_modules/typescript/bin/tsc"), "-p", "."],
      app,
    );
    const failing = [...tsc.stdout.matchAll(/^(\S+)\(\d+,\d+\): error TS\d+/gm)].map((match) => match[1] ?? "");
    expect(
      failing.filter((file) => !UPSTREAM_ERRORS.includes(file)),
      tsc.stdout,
    ).toEqual([]);
    const ran = await exec(process.execPath, ["out/app.js"], app);
    expect(ran.stderr).toBe("");
    expect(ran.stdout).toBe("done It is 30 °C in Pune. 2 true\n");
  });

  it("runs a plain .mjs app", async () => {
    const ran = await exec(process.execPath, ["app.mjs"], app);
    expect(ran).toMatchObject({ code: 0, stdout: "done 5 2\n", stderr: "" });
  });

  it("serves a chat with agentloop serve --ui-stream: the page at /, the chat API at /api/chat", async () => {
    writeFileSync(join(app, "served-tools.mjs"), "export default () => {};\n");
    writeFileSync(join(app, "hello.json"), JSON.stringify([{ content: "Hello there.", toolCalls: [] }]));
    const main = join(app, "node_modules/@agentloop/cli/dist/main.js");
    const args = ["serve", "--ui-stream", "--port", "0", "--tools", "served-tools.mjs", "--script", "hello.json"];
    const server = spawn(process.execPath, [main, ...args, "--store", "runs"], { cwd: app });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        server.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const found = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1];
          if (found !== undefined) resolve(found);
        });
        server.stderr.on("data", (chunk: Buffer) => reject(new Error(chunk.toString())));
        server.on("exit", (code) => reject(new Error(`serve exited ${code}`)));
      });
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<title>agentloop chat</title>");
      const message = { id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] };
      const chat = await fetch(new URL("/api/chat", url), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id: "hello", messages: [message], trigger: "submit-message" }),
      });
      expect(chat.status).toBe(200);
      const deltas = [...(await chat.text()).matchAll(/"type":"text-delta","id":"[^"]*","delta":"([^"]*)"/g)];
      expect(deltas.map((match) => match[1]).join("")).toBe("Hello there.");
    } finally {
      server.kill("SIGTERM");
    }
  });
});
