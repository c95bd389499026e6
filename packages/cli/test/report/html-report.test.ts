import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { hangGuard } from "@agentloop/store-testkit/servers";
import { beforeAll, describe, expect, it } from "vitest";
import { agentMachine } from "../../src/core-api.js";
import { openInChromium, requireChromium } from "../chromium.js";
import { fixture, tempDir } from "../cli.js";
import { agentloop, runScripted } from "../in-process.js";
import { shiftLog } from "../logs.js";
import { writeLongLog } from "../long-log.js";

// slow: it renders reports of up to 10,000 steps in Chromium.

const dir = tempDir();
const store = join(dir, "runs");
/** Screenshots are kept here (git-ignored) as artefacts of the run. */
const RESULTS = fileURLToPath(new URL("../../test-results/", import.meta.url));
const stateIds: string[] = [];
const visit = (node: typeof agentMachine.root) => {
  stateIds.push(node.id);
  for (const child of Object.values(node.states)) visit(child);
};
visit(agentMachine.root);

interface Measure {
  overlaps: string[];
  clipped: string[];
  columns: string[];
  lit: { value: number; focus: number; label: string; current: number }[];
  states: number;
  entries: number;
  notes: string[];
  marks: string[];
  nodes: number;
}

/** Renders a report in headless Chromium with the measuring script appended, and keeps a screenshot. */
async function inChromium(report: string, name: string): Promise<{ dom: string; measure: Measure }> {
  const measured = report.replace(/\.html$/, ".measured.html");
  const script = readFileSync(fixture("measure.js"), "utf8");
  writeFileSync(measured, readFileSync(report, "utf8").replace("</body>", `<script>${script}</script></body>`));
  const dom = await openInChromium(measured, ["--dump-dom", "--window-size=1400,1000"]);
  const json = /data-measure="([^"]*)"/.exec(dom)?.[1] ?? "{}";
  const measure = JSON.parse(
    json
      .replaceAll("&quot;", '"')
      .replaceAll("&amp;", "&")
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&#39;", "'"),
  ) as Measure;
  mkdirSync(RESULTS, { recursive: true });
  const png = join(RESULTS, `${name}.png`);
  await openInChromium(report, [`--screenshot=${png}`, "--window-size=1400,1300", "--hide-scrollbars"]);
  expect(readFileSync(png).subarray(1, 4).toString()).toBe("PNG");
  return { dom, measure };
}

const reports = {
  small: join(dir, "small.html"),
  long: join(dir, "long.html"),
  paused: join(dir, "paused.html"),
  resumed: join(dir, "resumed.html"),
  huge: join(dir, "huge.html"),
  talk: join(dir, "talk.html"),
};

beforeAll(async () => {
  requireChromium();
  const tools = fixture("tools.mjs");
  const run = (runId: string, script: string, ...flags: string[]) =>
    runScripted(store, runId, script, "--json", ...flags, "t");
  expect((await run("small", fixture("weather-script.json"))).code).toBe(0);
  shiftLog(join(store, "small.jsonl"), 4, 12_500);
  shiftLog(join(store, "small.jsonl"), 8, 3_600_000);
  // Long runs are built event by event: a run through the scripted model copies every list it is shown.
  writeLongLog(store, "long", 1001);
  writeLongLog(store, "huge", 10_000, 7);
  const conversation = [
    {
      content: "",
      toolCalls: [
        { id: "p", name: "get_weather", args: { city: "Pune" } },
        { id: "d", name: "get_weather", args: { city: "Delhi" } },
      ],
    },
    { content: "Pune 30, Delhi 35.", toolCalls: [] },
    { content: "The same tomorrow.", toolCalls: [] },
  ];
  writeFileSync(join(dir, "conversation.json"), JSON.stringify(conversation));
  expect((await run("talk", join(dir, "conversation.json"))).code).toBe(0);
  const chat = ["chat", join(store, "talk.jsonl"), "--tools", tools, "--script", join(dir, "conversation.json")];
  expect((await agentloop([...chat, "And tomorrow?"])).code).toBe(0);
  expect((await run("paused", fixture("approval-full.json"))).code).toBe(5);
  expect((await run("resumed", fixture("approval-full.json"))).code).toBe(5);
  shiftLog(join(store, "resumed.jsonl"), 0, 0);
  const resumed = await agentloop([
    "resume",
    join(store, "resumed.jsonl"),
    "--tools",
    tools,
    "--script",
    fixture("approval-full.json"),
    "--approve",
    "m1",
    "--json",
  ]);
  expect(resumed.code).toBe(0);
  shiftLog(join(store, "resumed.jsonl"), 5, 180_000);
  for (const [name, report] of Object.entries(reports)) {
    const shown = await agentloop(["show", join(store, `${name}.jsonl`), "--html", report]);
    expect(shown.code).toBe(0);
  }
}, hangGuard(120_000));

describe("the HTML run report", () => {
  it("is one self-contained page: inline style, script and SVG, nothing to fetch", () => {
    const html = readFileSync(reports.small, "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<(link|img|iframe)\b|\bsrc=|@import|url\((?!#)/);
    expect(html.match(/https?:\/\/[^\s"')]+/g) ?? []).toEqual(["http://www.w3.org/2000/svg"]);
  });

  it(
    "a small run: every state drawn, the path marked, nothing overlapping, columns apart past 10 s",
    async () => {
      const { dom, measure } = await inChromium(reports.small, "report-small");
      expect(dom).toMatch(/<body[^>]* data-ready="true"/);
      for (const id of stateIds) expect(dom).toContain(`data-id="${id}"`);
      expect(measure.states).toBe(stateIds.length);
      expect(measure.overlaps).toEqual([]);
      expect(measure.clipped).toEqual([]);
      expect(measure.columns).toEqual([]);
      expect(measure.entries).toBe(12);
      expect(dom).toContain('<span class="time">+1h00m</span>');
      expect(dom).toContain("no event for 1h00m");
      expect(dom).toMatch(/class="state final visited end[^"]*" data-id="agent\.done"/);
      expect(dom).toContain("model.replied ×1");
      expect(dom).toContain("entered ×4");
      expect(measure.lit[0]?.focus).toBeGreaterThan(0);
      expect(dom).toContain('<div class="msg tool error">');
      expect(dom).toContain("usage 310 in / 12 out");
    },
    hangGuard(60_000),
  );

  it(
    "a 1,000-step run: a window of the timeline, the slider lights each event, counts whole",
    async () => {
      const { dom, measure } = await inChromium(reports.long, "report-1000-steps");
      expect(dom).toMatch(/id="outcome">done · 1001 steps · \d+ tokens · 3003 events</);
      expect(measure.overlaps).toEqual([]);
      expect(measure.clipped).toEqual([]);
      expect(measure.columns).toEqual([]);
      expect(measure.entries).toBeLessThanOrEqual(60);
      expect(measure.nodes).toBeLessThan(3000);
      expect(dom).toContain("entered ×1001");
      expect(dom).toContain("tool.finished");
      expect(dom).toMatch(/\[isLastResult\] ×1000/);
      const [, middle, last] = measure.lit;
      expect(middle?.label).toMatch(/^#1501 /);
      expect(middle?.focus).toBeGreaterThanOrEqual(0);
      expect(middle?.current).toBe(1);
      expect(last?.label).toMatch(/^#3002 run\.finished/);
    },
    hangGuard(60_000),
  );

  it(
    "a 10,000-step run stays small: a page smaller than its log, a window of nodes, marks merged",
    async () => {
      const bytes = statSync(reports.huge).size;
      expect(bytes).toBeLessThan(statSync(join(store, "huge.jsonl")).size);
      expect(bytes).toBeLessThan(3_000_000);
      const { dom, measure } = await inChromium(reports.huge, "report-10000-steps");
      expect(dom).toMatch(/id="outcome">done · 10000 steps · \d+ tokens · 30000 events</);
      expect(measure.entries).toBeLessThanOrEqual(60);
      // The page's size follows the machine's chart and the windows, never the run's length: the
      // chart's newer states (preparingStep, awaitingInput, costBudget, handingOff) are in this bound.
      expect(measure.nodes).toBeLessThan(2200);
      expect(measure.overlaps).toEqual([]);
      expect(measure.clipped).toEqual([]);
      expect(dom).toContain("entered ×10000");
      // A long pause every 7 events: 4,285 notes, shown in the window only, merged on the track.
      expect(measure.notes.length).toBeGreaterThan(0);
      expect(measure.notes.length).toBeLessThanOrEqual(10);
      expect(measure.marks.length).toBeLessThanOrEqual(400);
      expect(measure.marks.some((mark) => /\(and \d+ more here\)$/.test(mark))).toBe(true);
      expect(measure.lit.at(-1)?.label).toMatch(/^#29999 run\.finished/);
    },
    hangGuard(60_000),
  );

  it(
    "a conversation: each turn marked on the timeline and the track, parallel calls side by side",
    async () => {
      const { dom, measure } = await inChromium(reports.talk, "report-conversation");
      expect(dom).toMatch(/id="outcome">done · 3 steps · \d+ tokens · 11 events · 2 turns</);
      const turn = "turn 2: the conversation goes on with the user's next message";
      expect(measure.notes).toEqual([`note turn: ${turn}`]);
      expect(measure.marks).toEqual([`mark turn: ${turn}`]);
      expect(dom).toContain('<span class="turn">turn 2</span>');
      expect(dom).toContain("turn 2 done · steps 3");
      const types = [...dom.matchAll(/<span class="type">([^<]+)<\/span>/g)].map((match) => match[1]);
      expect(types.slice(1, 4)).toEqual(["model.replied", "tool.started", "tool.started"]);
      expect(measure.overlaps).toEqual([]);
      expect(measure.clipped).toEqual([]);
    },
    hangGuard(60_000),
  );

  it(
    "a paused run names the call that waits; a resumed one marks the pause on the timeline",
    async () => {
      const { dom, measure } = await inChromium(reports.paused, "report-paused");
      expect(measure.overlaps).toEqual([]);
      expect(measure.clipped).toEqual([]);
      expect(dom).toContain("<strong>Waiting</strong> for a decision on <code>m1</code> (send_report)");
      expect(dom).toMatch(/id="outcome">awaiting_approval · 2 steps/);
      expect(dom).toMatch(/class="state atomic visited end[^"]*" data-id="agent\.executingTools\.awaitingDecision"/);
      expect(measure.notes).toEqual(["note waiting: waiting for a decision on m1 (send_report)"]);
      expect(measure.marks).toEqual(["mark waiting: waiting for a decision on m1 (send_report)"]);
      const resumed = await inChromium(reports.resumed, "report-resumed");
      expect(resumed.measure.notes).toEqual(["note pause: paused 3m00s for a decision on m1 (send_report)"]);
      expect(resumed.measure.marks).toEqual(["mark pause: paused 3m00s for a decision on m1 (send_report)"]);
      expect(existsSync(join(RESULTS, "report-paused.png"))).toBe(true);
    },
    hangGuard(60_000),
  );
});
