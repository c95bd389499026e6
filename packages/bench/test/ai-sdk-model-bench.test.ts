import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../dist/ai-sdk-model-main.js", import.meta.url));

describe("pnpm --filter @agentloop/bench bench:ai-sdk-model --tiny", () => {
  it("exits 0 and prints, per conversation, the provider alone and through aiSdkModel, plain and streamed", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [main, "--tiny"], { maxBuffer: 1 << 20 });
    const rows = [...stdout.matchAll(/^\| (\d+) messages \|(.*)$/gm)];
    expect(rows.map((row) => row[1])).toEqual(["4", "22", "102"]);
    for (const row of rows) expect(row[2]?.match(/\d+\.\d+ µs/g)).toHaveLength(6);
    expect(stdout).not.toMatch(/\bNaN\b/);
  });
});
