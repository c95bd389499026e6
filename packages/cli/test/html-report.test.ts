import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { agentMachine } from "@agentloop/core";
import { beforeAll, describe, expect, it } from "vitest";
import { openInChromium, requireChromium } from "./chromium.js";
import { cli, fixture, tempDir } from "./cli.js";

const dir = tempDir();
const report = join(dir, "report.html");
const RESULTS = fileURLToPath(new URL("../test-results/", import.meta.url));
const stateIds: string[] = [];
const visit = (node: typeof agentMachine.root) => {
  stateIds.push(node.id);
  for (const child of Object.values(node.states)) visit(child);
};
visit(agentMachine.root);

/** The attribute values of every element in `html` that has the class `name` among its classes. */
function withClass(html: string, name: string): string[] {
  return [...html.matchAll(/<g class="([^"]*)" data-id="([^"]*)"/g)]
    .filter((m) => m[1]?.split(" ").includes(name))
    .map((m) => m[2] ?? "");
}

beforeAll(async () => {
  requireChromium();
  const run = await cli([
    "run",
    "--tools",
    fixture("tools.mjs"),
    "--script",
    fixture("weather-script.json"),
    "--store",
    dir,
    "--run-id",
    "w",
    "How hot is Pune in Fahrenheit?",
  ]);
  expect(run.code).toBe(0);
  const show = await cli(["show", join(dir, "w.jsonl"), "--html", report]);
  expect(show.code).toBe(0);
  expect(show.stdout).toContain(`report   ${report}`);
}, 30_000);

describe("the HTML run report", () => {
  it("is one self-contained page: inline style, script and SVG, nothing to fetch", () => {
    const html = readFileSync(report, "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<(link|img|iframe)\b|\bsrc=|@import|url\((?!#)/);
    expect(html.match(/https?:\/\/[^\s"')]+/g) ?? []).toEqual(["http://www.w3.org/2000/svg"]);
  });

  it("renders in headless Chromium: the statechart with the run's path marked, and the timeline", async () => {
    const dom = await openInChromium(report, ["--dump-dom"]);
    expect(dom).toMatch(/<body[^>]* data-ready="true"/);
    expect(dom).toContain(`data-states="${stateIds.length}"`);
    expect(dom).toContain('data-overlaps="0"');
    for (const id of stateIds) expect(dom).toContain(`data-id="${id}"`);
    expect(withClass(dom, "visited")).toEqual(
      expect.arrayContaining([
        "agent.budgetCheck",
        "agent.callingModel",
        "agent.executingTools",
        "agent.executingTools.runningTool",
        "agent.done",
      ]),
    );
    expect(withClass(dom, "visited")).not.toContain("agent.stepLimit");
    expect(withClass(dom, "end")).toEqual(["agent.done"]);
    expect(withClass(dom, "taken")).toEqual(
      expect.arrayContaining([
        "agent.callingModel:model.replied:0",
        "agent.callingModel:model.replied:1",
        "agent.executingTools.runningTool:tool.finished:0",
      ]),
    );
    expect(withClass(dom, "taken")).not.toContain("agent.budgetCheck:always:0");
    const hops = [...dom.matchAll(/<span class="hop">([^<]+)<\/span>/g)].map((m) => m[1]);
    expect(hops.slice(0, 3)).toEqual(["budgetCheck", "callingModel", "executingTools.nextCall"]);
    expect(hops.at(-1)).toBe("done");
    expect(dom.match(/<li class="entry /g)).toHaveLength(12);
    expect(dom).toMatch(/<li class="entry type-tool-finished has-error"/);
    expect(dom).toContain('<div class="msg tool error">');
    expect(dom).toContain("no weather station in 'Atlantis'");
    expect(dom).toContain("usage 310 in / 12 out");
    expect(dom).toMatch(/id="outcome">done · 4 steps · \d+ tokens</);
  }, 60_000);

  it("keeps a screenshot as an artifact", async () => {
    mkdirSync(RESULTS, { recursive: true });
    const png = join(RESULTS, "html-report.png");
    await openInChromium(report, [`--screenshot=${png}`, "--window-size=1200,900", "--hide-scrollbars"]);
    expect(existsSync(png)).toBe(true);
    const header = readFileSync(png).subarray(0, 24);
    expect(header.subarray(1, 4).toString()).toBe("PNG");
    expect([header.readUInt32BE(16), header.readUInt32BE(20)]).toEqual([1200, 900]);
    expect(statSync(png).size).toBeGreaterThan(20_000);
  }, 60_000);
});
